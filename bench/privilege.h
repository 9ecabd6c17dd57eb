/*
 * The privileges the selected benchmarks need, checked before any work:
 * without them every case would fail one by one (and a refused BPF load
 * would read as a kernel that lacks the feature).
 */
#ifndef KB_PRIVILEGE_H
#define KB_PRIVILEGE_H

/*
 * 0 when this process may run every benchmark filter selects; else prints
 * one line naming what is missing ("kbench: CMD: ...") and returns
 * KB_EXIT_ENV.
 */
int kb_privilege_check(const char *cmd, const char *filter);

#endif
