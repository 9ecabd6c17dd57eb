/* kbench claims: the features' published claims beside what a run measured. */
#include "../analysis/claims_print.h"
#include "../lib/paths.h"
#include "../lib/util.h"
#include "../results/select.h"
#include "../results/store.h"
#include "commands.h"
#include "suite_options.h"

#include <stdio.h>
#include <stdlib.h>

struct claims_cli {
	const char *db, *file, *host;
	bool json, by_class;
};

static const struct kb_option claims_options[] = {
	{ KB_O("db", 0, KB_OPT_STRING, offsetof(struct claims_cli, db), "PATH", "results database"),
	  .dflt = kb_store_default_path },
	KB_OPT_HOST(struct claims_cli, host),
	KB_OPT_CLASS(struct claims_cli, by_class),
	{ KB_O("claims", 0, KB_OPT_STRING, offsetof(struct claims_cli, file), "FILE",
	       "the claims file (default: the one kbench carries,\nanalysis/claims.txt)") },
	{ KB_O("json", 'J', KB_OPT_SET, offsetof(struct claims_cli, json), NULL,
	       "print the claims and verdicts as JSON") },
	{ 0 },
};

const struct kb_cmd kb_cmd_claims = {
	.name = "claims",
	.synopsis = "[RUN|FILE] [OPTIONS]",
	.about = "  Puts each claim the 6.13 features were merged with (the file lists its\n"
		 "  source, its published figure and the benchmark that tests it) beside what\n"
		 "  RUN measured (default: latest): reproduced, contradicted (with the figure),\n"
		 "  not settled (the confidence intervals overlap) or not measurable here (with\n"
		 "  the reason: the kernel lacks it, veth has no interrupts, ...).\n",
	.options = claims_options,
	.more = "exit: 0 whatever the verdicts; 2 bad input (an unknown run, a bad claims file)\n",
};

int cmd_claims(int argc, char **argv)
{
	struct claims_cli cli = { 0 };
	struct kb_claims claims;
	struct kb_run *run;
	size_t n;
	char desc[256], err[1024];
	const char *ref = "latest";
	int rc = kb_opt_parse(&kb_cmd_claims, NULL, argc, argv, &cli);

	if (rc)
		return rc < 0 ? KB_EXIT_OK : rc;
	if (optind < argc)
		ref = argv[optind++];
	if (optind < argc) {
		kb_err("claims: unexpected argument '%s'", argv[optind]);
		return KB_EXIT_USAGE;
	}
	if (kb_claims_load(cli.file ? cli.file : kb_path_claims(), &claims, err, sizeof(err))) {
		kb_err("claims: %s", err);
		return KB_EXIT_USAGE;
	}
	rc = kb_select_runs("claims", cli.db, ref, false, &run, &n, desc, sizeof(desc));
	if (!rc) {
		if (cli.json) {
			cJSON *doc = kb_claims_json(&claims, run);
			char *text = doc ? cJSON_Print(doc) : NULL;

			if (text)
				printf("%s\n", text);
			else
				rc = KB_EXIT_ENV, kb_err("claims: out of memory");
			free(text);
			cJSON_Delete(doc);
		} else {
			kb_claims_print_text(stdout, &claims, run);
		}
		kb_free_runs(run, n);
	}
	kb_claims_free(&claims);
	return rc;
}
