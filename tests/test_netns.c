/*
 * kernel/net/netns: threads that enter a namespace and leave it, as
 * net/rtnl/ops' workers do every sample, leave no file descriptor behind
 * and come back to the namespace they started in.
 */
#include "helpers.h"
#include "../kernel/net/netns.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS 200

struct visit {
	int ns;
	int err;
	ino_t inside, after;	/* the thread's namespace in it and after leaving */
};

static ino_t thread_ns(void)
{
	struct stat st;

	return stat("/proc/thread-self/ns/net", &st) ? 0 : st.st_ino;
}

static void *visit(void *arg)
{
	struct visit *v = arg;

	v->err = kb_netns_enter(v->ns);
	v->inside = thread_ns();
	kb_netns_leave();
	v->after = thread_ns();
	return NULL;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

Test(netns, a_thread_that_entered_and_left_holds_no_fd_and_is_back_home, .timeout = 120)
{
	struct visit v = { .err = 0 };
	struct stat st;
	ino_t home = thread_ns();
	int before, ns = kb_netns_new();

	if (ns == -EPERM)
		cr_skip_test("not permitted to make a network namespace (needs root)");
	cr_assert_geq(ns, 0, "kb_netns_new: %s", strerror(-ns));
	cr_assert_eq(fstat(ns, &st), 0);
	before = open_fds();
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;

		v = (struct visit){ .ns = ns };
		cr_assert_eq(pthread_create(&t, NULL, visit, &v), 0);
		pthread_join(t, NULL);
		cr_assert_eq(v.err, 0, "thread %d: enter: %s", i, strerror(-v.err));
		cr_assert_eq(v.inside, st.st_ino, "thread %d was not in the namespace", i);
		cr_assert_eq(v.after, home, "thread %d did not come back", i);
	}
	cr_expect_eq(open_fds(), before, "%d threads left %d fds open", THREADS, open_fds() - before);
	/* The calling thread, twice over: the second enter must find its way back too. */
	for (int i = 0; i < 2; i++) {
		visit(&v);
		cr_expect_eq(v.err, 0);
		cr_expect_eq(v.after, home);
	}
	cr_expect_eq(open_fds(), before);
	close(ns);
}
