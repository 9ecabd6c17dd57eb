#include "qemu.h"
#include "initramfs.h"
#include "../../lib/spawn.h"
#include "../undo.h"
#include "../../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A KVM boot that works reaches init in about a second. */
#define KVM_TRY_BOOT_S 10.0
/* The end of the console kept for error messages. */
#define TAIL_MAX 4096

struct qemu_proc {
	pid_t pid;
	bool reaped;
};

/* CPU seconds qemu has used so far (utime + stime), NAN when unreadable. */
static double qemu_cpu_s(pid_t pid)
{
	char path[64], buf[1024], *close_paren;
	unsigned long long utime, stime;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f) {
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
	/* Fields after the command name, which may hold spaces: state is field 3. */
	close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				   &utime, &stime) != 2)
		return NAN;
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static void kill_qemu(void *arg)
{
	struct qemu_proc *q = arg;

	if (!q->reaped) {
		kill(q->pid, SIGKILL);
		kb_spawn_wait(q->pid);
		q->reaped = true;
	}
}

/*
 * The longest time any of qemu's threads spent runnable but waiting for a
 * CPU (schedstat's second field), in seconds; 0 when unreadable.
 */
static double qemu_wait_s(pid_t pid)
{
	char path[64];
	double most = 0.0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0.0;
	for (struct dirent *e; (e = readdir(d));) {
		unsigned long long run, wait;
		char stat[sizeof(path) + sizeof(e->d_name) + 16];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(stat, sizeof(stat), "%s/%s/schedstat", path, e->d_name);
		f = fopen(stat, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &run, &wait) == 2 && (double)wait / 1e9 > most)
			most = (double)wait / 1e9;
		fclose(f);
	}
	closedir(d);
	return most;
}

/*
 * The boot limit counts the time qemu was not kept waiting for a CPU: a
 * host busy with other work stretches a 5 s boot to 33 s (seen here with
 * both CPUs loaded), and that is not the guest's fault. A guest that halts
 * or hangs waits for nothing and is killed on time; a starved one gets at
 * most three times the limit.
 */
static bool past_boot_limit(pid_t pid, double t, double limit)
{
	return t > limit && (t > 3.0 * limit || t - qemu_wait_s(pid) > limit);
}

struct console {
	int log_fd;
	bool echo, init_seen;
	char tail[TAIL_MAX + 1];
	size_t tail_len;
	char release[128];
};

/* Keeps the last TAIL_MAX bytes; looks for init's line there. */
static void console_take(struct console *c, const char *buf, size_t n)
{
	if (c->log_fd >= 0 && write(c->log_fd, buf, n) < 0)
		c->log_fd = -1;
	if (c->init_seen && c->echo && write(STDERR_FILENO, buf, n) < 0)
		c->echo = false;
	if (n >= TAIL_MAX) {
		memcpy(c->tail, buf + n - TAIL_MAX, TAIL_MAX);
		c->tail_len = TAIL_MAX;
	} else {
		size_t keep = c->tail_len + n > TAIL_MAX ? TAIL_MAX - n : c->tail_len;

		memmove(c->tail, c->tail + c->tail_len - keep, keep);
		memcpy(c->tail + keep, buf, n);
		c->tail_len = keep + n;
	}
	c->tail[c->tail_len] = '\0';
	if (!c->init_seen) {
		char *at = strstr(c->tail, KB_VM_INIT_TAG);

		if (at && strchr(at, '\n')) {
			at += strlen(KB_VM_INIT_TAG);
			snprintf(c->release, sizeof(c->release), "%.*s", (int)strcspn(at, "\r\n"), at);
			c->init_seen = true;
		}
	}
}

/*
 * The console line for an error message, printable: the first line of an
 * oops or panic when the kernel had one (its last lines are only the dump's
 * end), else the last non-empty line.
 */
static void last_line(const struct console *c, char *out, size_t size)
{
	char copy[TAIL_MAX + 1], *save = NULL, *last = NULL, *panic = NULL;

	memcpy(copy, c->tail, c->tail_len + 1);
	/* A line still being written is the last word only when it is the only one. */
	if (c->tail_len && !strchr("\r\n", copy[c->tail_len - 1])) {
		char *cut = copy + strcspn(copy, "\r\n") < copy + c->tail_len ?
			    strrchr(copy, '\n') : NULL;

		if (cut)
			*cut = '\0';
	}
	for (char *l = strtok_r(copy, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
		for (char *p = l; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
				*p = ' ';
		/* The kernel's own last word is always the power-off. */
		if (l[strspn(l, " ")] && !strstr(l, "reboot: Power down"))
			last = l;
		if (!panic && (strstr(l, "BUG: ") || strstr(l, "Oops") ||
			       strstr(l, "Kernel panic - not syncing")))
			panic = l;
	}
	last = panic ? panic : last;
	snprintf(out, size, "%s", last ? last + strspn(last, " ") : "nothing");
}

/* -netdev hubport,... -device virtio-net-pci,... per NIC: all on hub 0. */
struct nic_args {
	char netdev[KB_VM_MAX_NICS][64], device[KB_VM_MAX_NICS][96];
};

static void build_argv(const struct kb_vm_boot *b, bool kvm, char *ttys1, size_t tsize,
		       char *mem, size_t msize, char *smp, size_t ssize, struct nic_args *nic,
		       char *argv[48])
{
	int n = 0;

	snprintf(ttys1, tsize, "file:%s/ttyS1", b->workdir);
	snprintf(mem, msize, "%u", b->mem_mib);
	snprintf(smp, ssize, "%u", b->cpus);
	argv[n++] = KB_QEMU;
	argv[n++] = "-nodefaults";	/* no NIC but b->nics, no VGA: the guest reaches nothing */
	argv[n++] = "-no-user-config";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-monitor";
	argv[n++] = "none";
	argv[n++] = "-serial";
	argv[n++] = "stdio";
	argv[n++] = "-serial";
	argv[n++] = ttys1;
	argv[n++] = "-no-reboot";	/* a panic (panic=-1 reboots) ends qemu */
	argv[n++] = "-accel";
	argv[n++] = kvm ? "kvm" : b->tcg_multi ? "tcg,thread=multi" : "tcg,thread=single";
	if (kvm) {
		argv[n++] = "-cpu";
		argv[n++] = "host";
	}
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = smp;
	argv[n++] = "-kernel";
	argv[n++] = (char *)b->kernel;
	argv[n++] = "-initrd";
	argv[n++] = (char *)b->initrd;
	for (unsigned i = 0; i < b->nics && i < KB_VM_MAX_NICS; i++) {
		snprintf(nic->netdev[i], sizeof(nic->netdev[i]), "hubport,id=kbnic%u,hubid=0", i);
		/* Locally administered MACs, distinct per NIC. */
		snprintf(nic->device[i], sizeof(nic->device[i]),
			 "virtio-net-pci,netdev=kbnic%u,mac=02:6b:62:00:00:%02x", i, i + 1);
		argv[n++] = "-netdev";
		argv[n++] = nic->netdev[i];
		argv[n++] = "-device";
		argv[n++] = nic->device[i];
	}
	argv[n++] = "-append";
	argv[n++] = "console=ttyS0 quiet panic=-1 oops=panic";
	argv[n] = NULL;
}

/* Parses ttyS1: the tag line, then exactly the bytes it announces. */
static int read_result(const char *workdir, struct kb_vm_outcome *out, char *err, size_t size)
{
	char path[4200];
	size_t len = 0, bytes = 0;
	char *data, *at;
	int rc;

	snprintf(path, sizeof(path), "%s/ttyS1", workdir);
	data = kb_read_file(path, &len);
	at = data ? strstr(data, KB_VM_RESULT_TAG " ") : NULL;
	if (!at || sscanf(at, KB_VM_RESULT_TAG " rc=%d bytes=%zu", &rc, &bytes) != 2 ||
	    !strchr(at, '\n')) {
		free(data);
		snprintf(err, size, "the guest ended without a result");
		return -1;
	}
	at = strchr(at, '\n') + 1;
	if ((size_t)(data + len - at) < bytes) {
		snprintf(err, size, "the guest's result is truncated (%zu of %zu bytes)",
			 (size_t)(data + len - at), bytes);
		free(data);
		return -1;
	}
	out->output = malloc(bytes + 1);
	if (!out->output) {
		free(data);
		snprintf(err, size, "out of memory");
		return -1;
	}
	memcpy(out->output, at, bytes);
	out->output[bytes] = '\0';
	out->output_len = bytes;
	out->guest_rc = rc;
	free(data);
	return 0;
}

enum boot_end { ENDED, NO_INIT, TIMED_OUT, STOPPED, FAILED };

/* One qemu process, start to end. The console pipe's EOF means qemu is gone. */
static enum boot_end boot_once(const struct kb_vm_boot *b, bool kvm, double boot_limit,
			       struct kb_vm_outcome *out, struct console *con, int *qemu_status,
			       char *err, size_t size)
{
	char ttys1[4200], mem[16], smp[16], *argv[48];
	struct nic_args nic;
	uint64_t start = kb_now_ns();
	struct qemu_proc *q = calloc(1, sizeof(*q));
	unsigned mark = kb_undo_mark();
	enum boot_end end = ENDED;
	int p[2];

	build_argv(b, kvm, ttys1, sizeof(ttys1), mem, sizeof(mem), smp, sizeof(smp), &nic, argv);
	if (!q || pipe2(p, O_CLOEXEC)) {
		free(q);
		snprintf(err, size, "pipe: %s", strerror(errno));
		return FAILED;
	}
	q->pid = kb_spawn(argv, -1, p[1], p[1]);
	close(p[1]);
	if (q->pid < 0 || kb_undo_push("kill qemu", kill_qemu, q)) {
		snprintf(err, size, "starting %s: %s", KB_QEMU,
			 strerror(q->pid < 0 ? (int)-q->pid : ENOMEM));
		if (q->pid > 0)
			kill_qemu(q);
		free(q);
		close(p[0]);
		return FAILED;
	}
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		double t = (double)(kb_now_ns() - start) / 1e9;
		char buf[4096];
		bool booted;
		ssize_t r;

		if (kb_stop_requested()) {
			end = STOPPED;
			break;
		}
		if (!con->init_seen && past_boot_limit(q->pid, t, boot_limit)) {
			out->no_init_cpu_s = qemu_cpu_s(q->pid);
			out->no_init_wall_s = t;
			end = NO_INIT;
			break;
		}
		if (t > b->timeout_s) {
			end = TIMED_OUT;
			break;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		r = read(p[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		booted = con->init_seen;
		console_take(con, buf, (size_t)r);
		if (!booted && con->init_seen)
			out->boot_s = (double)(kb_now_ns() - start) / 1e9;
	}
	close(p[0]);
	if (end == ENDED) {
		*qemu_status = kb_spawn_wait(q->pid);
		q->reaped = true;
	}
	kb_undo_to(mark);	/* kills qemu unless it ended */
	out->total_s = (double)(kb_now_ns() - start) / 1e9;
	return end;
}

static bool kvm_usable(char *why, size_t size)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

int kb_vm_boot(const struct kb_vm_boot *b, struct kb_vm_outcome *out, char *err, size_t size)
{
	static char kvm_failed[sizeof(((struct kb_vm_outcome *)0)->accel_note)];
	char log[4200], line[256], retry_note[256] = "";
	bool autoaccel = !strcmp(b->accel, "auto"), kvm = !strcmp(b->accel, "kvm");
	struct console con;
	enum boot_end end;
	int status = -1;

	memset(out, 0, sizeof(*out));
	if (autoaccel)
		kvm = kvm_usable(out->accel_note, sizeof(out->accel_note));
	if (autoaccel && kvm_failed[0]) {
		/* A second boot in this process: KVM did not work the first time. */
		snprintf(out->accel_note, sizeof(out->accel_note), "%s", kvm_failed);
		kvm = false;
	}
	snprintf(log, sizeof(log), "%s/console.log", b->workdir);
	for (;;) {
		bool kvm_try = kvm && autoaccel;

		memset(&con, 0, sizeof(con));
		con.echo = b->echo;
		con.log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		end = boot_once(b, kvm, kvm_try ? KVM_TRY_BOOT_S : b->boot_timeout_s, out, &con,
				&status, err, size);
		if (con.log_fd >= 0)
			close(con.log_fd);
		last_line(&con, line, sizeof(line));
		if (end == NO_INIT && !kvm_try && !retry_note[0]) {
			/*
			 * Now and then (1 boot in some hundreds, on a loaded host) a
			 * guest never reaches init: one more boot, said in the note,
			 * tells that from a kernel that cannot boot.
			 */
			snprintf(retry_note, sizeof(retry_note),
				 KB_VM_REBOOT_NOTE " in %.0f s (qemu used %.1f s of "
				 "CPU; console: %.80s), booted again", out->no_init_wall_s,
				 out->no_init_cpu_s, line);
			continue;
		}
		if (!kvm_try || con.init_seen || end == STOPPED || end == FAILED)
			break;
		/* auto: KVM did not get the kernel to init; say why and use TCG. */
		snprintf(out->accel_note, sizeof(out->accel_note),
			 "KVM did not boot the guest to init in %.0f s (console: %.120s), "
			 "fell back to TCG", KVM_TRY_BOOT_S, line);
		snprintf(kvm_failed, sizeof(kvm_failed), "%s", out->accel_note);
		kvm = false;
	}
	snprintf(out->accel, sizeof(out->accel), "%s", kvm ? "kvm" : "tcg");
	if (!out->accel_note[0])
		snprintf(out->accel_note, sizeof(out->accel_note), "%s",
			 autoaccel ? "KVM usable" : "asked for");
	if (retry_note[0]) {
		size_t n = strlen(out->accel_note);

		snprintf(out->accel_note + n, sizeof(out->accel_note) - n, "; %s", retry_note);
		out->rebooted = true;
	}
	snprintf(out->guest_release, sizeof(out->guest_release), "%s", con.release);
	snprintf(out->console_line, sizeof(out->console_line), "%s", line);
	switch (end) {
	case FAILED:
		return -1;
	case STOPPED:
		snprintf(err, size, "interrupted by signal %d: the VM was killed", kb_stop_signal());
		return -1;
	case NO_INIT:
		snprintf(err, size, "the kernel did not reach init within %.0f s under %s, twice "
			 "(the second time in %.0f s, qemu used %.1f s of CPU); killed (console: %s; "
			 "--keep keeps its log)", b->boot_timeout_s, out->accel, out->no_init_wall_s,
			 out->no_init_cpu_s, line);
		return -1;
	case TIMED_OUT:
		snprintf(err, size, "the VM did not finish within %.0f s; killed (console: %s)",
			 b->timeout_s, line);
		return -1;
	case ENDED:
		break;
	}
	if (status == 127) {
		snprintf(err, size, "%s not found (make setup-vm installs qemu-system-x86)", KB_QEMU);
		return -1;
	}
	if (!con.init_seen) {
		snprintf(err, size, "qemu ended (exit %d) before the kernel reached init (console: %s)",
			 status, line);
		return -1;
	}
	if (read_result(b->workdir, out, err, size)) {
		size_t n = strlen(err);

		snprintf(err + n, size - n, " (console: %s)", line);
		return -1;
	}
	return 0;
}

void kb_qemu_version(char *buf, size_t size)
{
	char *argv[] = { KB_QEMU, "--version", NULL }, *out = NULL;

	if (kb_spawn_capture(argv, &out) == 0 && out && out[0])
		snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
	else
		snprintf(buf, size, "unknown");
	free(out);
}
