/*
 * Which kbench features a kernel .config enables: every fragment in
 * kernel/config/ (FEATURE.config, CONFIG_X=v lines) is one feature, and a
 * feature is enabled when the .config has each of its options at that value
 * (=m counts as a module: present once loaded).
 */
#ifndef KB_CONFIG_CHECK_H
#define KB_CONFIG_CHECK_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The fragment that is the union of the others (not a feature of its own). */
#define KB_FRAGMENT_ALL "kbench.config"

enum kb_feature_state { KB_FEAT_ENABLED, KB_FEAT_MODULES, KB_FEAT_MISSING };

/*
 * Checks config_text against every fragment in dir. Returns a JSON object
 * {"FEATURE": {"state": "enabled"|"modules"|"missing", "options":
 * {"CONFIG_X": {"want": "y", "have": "m"|"not set"|"absent"|...}}}} in
 * fragment name order, or NULL with err filled.
 */
cJSON *kb_config_check(const char *dir, const char *config_text, char *err, size_t size);

/* The fragment files of dir (sorted, without kbench.config); caller frees each and the array. */
char **kb_config_fragments(const char *dir, size_t *n, char *err, size_t size);

const char *kb_feature_state_name(enum kb_feature_state s);

#endif
