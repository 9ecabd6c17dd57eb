/*
 * A run's time budget (--time-budget, and each preset's own): the harness
 * measures what one round of each case costs (setup, sample, teardown)
 * and, where the rounds still planned would end the run past its budget,
 * takes fewer of them. Every case keeps KB_BUDGET_MIN_SAMPLES (or its own
 * count, when smaller); above that the time is shared out evenly: each
 * case's rounds above its floor, those taken and those to come, may take
 * up to the same cap, the cap as high as the budget allows. A case whose
 * samples cost milliseconds keeps all it planned; the seconds-long
 * traffic windows give way.
 * The rounds a sample plan added (--auto-samples) go first: while the
 * preset's count of every case fits, the cap is on the rounds above it,
 * so one case's plan never costs another case the samples it would have
 * had without one; only when even those do not fit are cases cut
 * toward their floors.
 */
#ifndef KB_TIME_BUDGET_H
#define KB_TIME_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

/* Samples every case keeps, however short the budget. */
#define KB_BUDGET_MIN_SAMPLES 10

struct kb_budget_case {
	long done;		/* rounds taken */
	long rounds;		/* rounds planned: cut in place */
	long floor;		/* rounds it keeps whatever the budget */
	long keep;		/* rounds it keeps while they all fit (the preset's); 0: floor */
	double ns_per_round;	/* measured; 0 or less: none yet, counted as free */
};

/*
 * Fits the cases' remaining rounds into ns_left: returns the cap on the
 * time each case's rounds above what it keeps may take in all, or above
 * its floor when the kept rounds do not fit (INFINITY: the plan fits,
 * nothing cut; 0: every case cut to its floor or what it took, which may
 * still not fit). A case never goes under what it took.
 */
double kb_budget_fit(struct kb_budget_case *cases, size_t n, double ns_left);

/*
 * "25m", "90s", "1h", "1500" (seconds) or "0" (no budget) into seconds.
 * false on anything else or past a day.
 */
bool kb_budget_parse(const char *text, double *seconds);

#endif
