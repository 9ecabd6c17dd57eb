#include "noise_prior.h"

#include <fnmatch.h>

/*
 * From kbench calibrate on the project's 2-CPU VM (docs/method.md, "Run-to-run
 * noise"; issue 17): mm/guard/fork 9-24% between runs, mm/guard/contention
 * 6-13%, mm/guard/fault moves with the page allocator and the scheduler as
 * fork does, net/rtnl/ops (rtnl lock contention) about 5%, most others 1-3%.
 * The prior sits at or above the typical figure: 10% for fork/fault and
 * lock-contention metrics, 5% for the rest.
 */
static const struct kb_noise_prior priors[] = {
	{ "mm/guard/fork", 0.10 },
	{ "mm/guard/fault", 0.10 },
	{ "mm/guard/contention", 0.10 },
	{ "net/rtnl/ops", 0.10 },
	{ "*", 0.05 },
};

const struct kb_noise_prior *kb_noise_prior_for(const char *benchmark)
{
	size_t n = sizeof(priors) / sizeof(priors[0]);

	for (size_t i = 0; i + 1 < n; i++)
		if (fnmatch(priors[i].family, benchmark, 0) == 0)
			return &priors[i];
	return &priors[n - 1];
}
