/*
 * The measuring process's address layout. With ASLR, each kbench process
 * puts its stack, heap, code and mappings at new addresses, and keeps them
 * for the whole run, so a syscall-bound cost can sit a few percent higher
 * or lower for one run than the next (measured: process_madvise guard
 * removal moved 6.7% between runs with ASLR, 0.7% without). A command
 * that measures runs with the layout fixed, as `setarch -R` does: this
 * process and its children only (personality ADDR_NO_RANDOMIZE); the
 * system's kernel.randomize_va_space stays as it is.
 */
#ifndef KB_LAYOUT_H
#define KB_LAYOUT_H

/*
 * Re-executes the running program (/proc/self/exe, same argv and
 * environment, same pid) with ADDR_NO_RANDOMIZE when this process lacks
 * it. Returns when it did not: already fixed, or the kernel refused (then
 * the run goes on randomized, and kb_layout_state says why).
 */
void kb_layout_fix(char **argv);

/* "fixed", or "randomized: WHY"; what a run stores as environment.address_layout. */
const char *kb_layout_state(void);

#endif
