/*
 * What the kernel made of a loaded BPF program: the JITed image (does it
 * use the 6.13 per-CPU private stack, or a frame on the kernel stack?), the
 * run statistics and recursion misses from bpf_prog_info, and the stack
 * depth the verifier reported in its log.
 */
#ifndef KB_BPF_INSPECT_H
#define KB_BPF_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kb_jit_info {
	bool private_stack;	/* mov(abs) ...,%r9 then add %gs:this_cpu_off,%r9 */
	long kernel_frame;	/* bytes of "sub $N,%rsp" in the image, 0 when none */
	uint32_t jited_len;
};

struct kb_prog_stats {
	uint64_t run_time_ns, run_cnt, recursion_misses;
};

/* Reads the JITed image of prog_fd. 0, or -errno. */
int kb_bpf_jit_info(int prog_fd, struct kb_jit_info *out);

int kb_bpf_prog_stats(int prog_fd, struct kb_prog_stats *out);

/*
 * The "stack depth A+B" line of a verifier log (log level 4 prints it),
 * copied as "A+B"; "?" when absent.
 */
void kb_bpf_log_stack_depth(const char *log, char *out, size_t size);

struct bpf_program;
struct bpf_link;

/* Attaches p where its section says; NULL with why ("attaching NAME: error"). */
struct bpf_link *kb_bpf_attach(struct bpf_program *p, char *why, size_t size);

/* libbpf's own messages go to stderr only with KBENCH_BPF_DEBUG=1. */
void kb_bpf_quiet(void);

/*
 * The verifier's error in a level-1 log of a refused program: its last
 * line that is no statistic ("processed N insns", "verification time",
 * "stack depth"). Empty when there is none.
 */
void kb_bpf_log_error(const char *log, char *out, size_t size);

/* "loading WHAT: strerror(-err) (verifier: its error in log)" into why. */
void kb_bpf_load_failed(char *why, size_t size, const char *what, int err, const char *log);

#endif
