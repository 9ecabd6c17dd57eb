#include "bpf_inspect.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The x86-64 JIT's private-stack prologue: add %gs:this_cpu_off,%r9 (65 4c 03 0c 25 disp32). */
static const unsigned char add_gs_r9[] = { 0x65, 0x4c, 0x03, 0x0c, 0x25 };

/*
 * Whether the frame pointer's per-CPU base is loaded into r9 right before
 * offset i, in any of the JIT's emit_mov_imm64 forms: movabs $imm64 (49 b9,
 * the 6.13 image), mov $simm32 (49 c7 c1), or mov $imm32,%r9d (41 b9: a
 * percpu address below 4 GiB, as 7.x kernels give it).
 */
static bool r9_loaded_before(const unsigned char *img, size_t i)
{
	return (i >= 10 && img[i - 10] == 0x49 && img[i - 9] == 0xb9) ||
	       (i >= 7 && img[i - 7] == 0x49 && img[i - 6] == 0xc7 && img[i - 5] == 0xc1) ||
	       (i >= 6 && img[i - 6] == 0x41 && img[i - 5] == 0xb9);
}

static void scan_image(const unsigned char *img, size_t len, struct kb_jit_info *out)
{
	for (size_t i = 0; i + 7 <= len; i++) {
		if (!memcmp(img + i, add_gs_r9, sizeof(add_gs_r9)) && r9_loaded_before(img, i))
			out->private_stack = true;
		/* sub $imm32,%rsp (48 81 ec) or sub $imm8,%rsp (48 83 ec). */
		if (img[i] == 0x48 && img[i + 1] == 0x81 && img[i + 2] == 0xec) {
			long n = (long)(img[i + 3] | img[i + 4] << 8 | img[i + 5] << 16 |
					(uint32_t)img[i + 6] << 24);

			if (n > out->kernel_frame)
				out->kernel_frame = n;
		} else if (img[i] == 0x48 && img[i + 1] == 0x83 && img[i + 2] == 0xec &&
			   img[i + 3] > out->kernel_frame) {
			out->kernel_frame = img[i + 3];
		}
	}
}

int kb_bpf_jit_info(int prog_fd, struct kb_jit_info *out)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	unsigned char *img;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (!info.jited_prog_len)
		return -ENOEXEC;	/* not JITed: interpreter */
	out->jited_len = info.jited_prog_len;
	img = malloc(info.jited_prog_len);
	if (!img)
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = out->jited_len;
	info.jited_prog_insns = (uint64_t)(uintptr_t)img;
	len = sizeof(info);
	err = bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? -errno : 0;
	if (!err)
		scan_image(img, out->jited_len, out);
	free(img);
	return err;
}

int kb_bpf_prog_stats(int prog_fd, struct kb_prog_stats *out)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	out->run_time_ns = info.run_time_ns;
	out->run_cnt = info.run_cnt;
	out->recursion_misses = info.recursion_misses;
	return 0;
}

void kb_bpf_log_stack_depth(const char *log, char *out, size_t size)
{
	const char *p = log ? strstr(log, "stack depth ") : NULL;

	if (!p) {
		snprintf(out, size, "?");
		return;
	}
	p += strlen("stack depth ");
	snprintf(out, size, "%.*s", (int)strcspn(p, " \n"), p);
}

static int print_debug(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int print_nothing(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void kb_bpf_quiet(void)
{
	const char *dbg = getenv("KBENCH_BPF_DEBUG");

	libbpf_set_print(dbg && *dbg == '1' ? print_debug : print_nothing);
}

void kb_bpf_log_error(const char *log, char *out, size_t size)
{
	static const char *const stats[] = { "processed ", "verification time", "stack depth" };
	const char *line = log, *found = NULL;
	int found_len = 0;

	while (*line) {
		int len = (int)strcspn(line, "\n");
		bool stat = len == 0;

		for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]) && !stat; i++)
			stat = !strncmp(line, stats[i], strlen(stats[i]));
		if (!stat) {
			found = line;
			found_len = len;
		}
		line += len + (line[len] == '\n');
	}
	snprintf(out, size, "%.*s", found ? found_len : 0, found ? found : "");
}

void kb_bpf_load_failed(char *why, size_t size, const char *what, int err, const char *log)
{
	char verifier[200];

	kb_bpf_log_error(log, verifier, sizeof(verifier));
	snprintf(why, size, "loading %s: %s%s%s%s", what, strerror(-err),
		 verifier[0] ? " (verifier: " : "", verifier, verifier[0] ? ")" : "");
}

struct bpf_link *kb_bpf_attach(struct bpf_program *p, char *why, size_t size)
{
	struct bpf_link *link = bpf_program__attach(p);

	if (!link)
		snprintf(why, size, "attaching %s (%s): %s", bpf_program__name(p),
			 bpf_program__section_name(p), strerror(errno));
	return link;
}
