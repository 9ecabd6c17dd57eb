#include "vm_outcome.h"
#include "../lib/sha256.h"
#include "../lib/util.h"
#include "../results/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_image(cJSON *vm, const char *image)
{
	size_t len = 0;
	char *data = kb_read_file(image, &len), hex[65];

	cJSON_AddStringToObject(vm, "kernel_image", image);
	if (data && kb_sha256_hex(data, len, hex))
		cJSON_AddStringToObject(vm, "kernel_image_sha256", hex);
	free(data);
}

int kb_vm_outcome_run(const struct kb_vm_job *j, const struct kb_vm_outcome *o,
		      struct kb_run *run, char *err, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength(o->output, o->output_len), *vm;
	char version[128];
	int rc;

	kb_run_init(run);
	if (!doc) {
		snprintf(err, size, "the guest's run is not valid JSON (%zu bytes)", o->output_len);
		return -1;
	}
	rc = kb_run_from_json(doc, run, err, size);
	cJSON_Delete(doc);
	if (rc)
		return -1;
	if (!run->environment)
		run->environment = cJSON_CreateObject();
	vm = cJSON_AddObjectToObject(run->environment, "vm");
	if (!vm) {
		snprintf(err, size, "out of memory");
		return -1;
	}
	kb_qemu_version(version, sizeof(version));
	cJSON_AddStringToObject(vm, "runner", "qemu");
	cJSON_AddStringToObject(vm, "qemu", version);
	cJSON_AddStringToObject(vm, "accel", o->accel);
	cJSON_AddStringToObject(vm, "accel_note", o->accel_note);
	if (!strcmp(o->accel, "tcg"))
		cJSON_AddStringToObject(vm, "tcg_threads", j->tcg_multi ? "multi" : "single");
	cJSON_AddNumberToObject(vm, "cpus", (double)j->cpus);
	cJSON_AddNumberToObject(vm, "memory_mib", (double)j->mem_mib);
	if (j->nics)
		cJSON_AddStringToObject(vm, "nics", j->nics == 1 ? "1 virtio-net on a qemu hub"
						: "virtio-net NICs wired to each other on one qemu hub");
	if (j->nics)
		cJSON_AddNumberToObject(vm, "nic_count", (double)j->nics);
	add_image(vm, j->kernel);
	cJSON_AddStringToObject(vm, "modules", j->modules ? j->modules : "none");
	cJSON_AddNumberToObject(vm, "boot_s", o->boot_s);
	cJSON_AddNumberToObject(vm, "total_s", o->total_s);
	return 0;
}
