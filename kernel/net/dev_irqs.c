#include "dev_irqs.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The numeric entries of dir (msi_irqs holds one file per vector). */
static int irqs_in(const char *dir, unsigned *irqs, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char *end;
		unsigned long v = strtoul(e->d_name, &end, 10);

		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end)
			irqs[n++] = (unsigned)v;
	}
	closedir(d);
	return n;
}

int kb_dev_irqs(const char *dev, unsigned *irqs, int max)
{
	/* The device, or (virtio) its PCI function, which holds the vectors. */
	static const char *const where[] = { "device", "device/.." };
	char path[256];
	unsigned v;
	FILE *f;
	int n;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s/msi_irqs", dev, where[i]);
		if ((n = irqs_in(path, irqs, max)) > 0)
			return n;
	}
	/* No MSI: a legacy line, the same two places. */
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/%s/irq", dev, where[i]);
		f = fopen(path, "re");
		n = f && max > 0 && fscanf(f, "%u", &v) == 1 && v ? (irqs[0] = v, 1) : 0;
		if (f)
			fclose(f);
		if (n)
			return n;
	}
	return 0;
}

void kb_dev_driver(const char *dev, char *buf, size_t size)
{
	char path[256], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", dev);
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	snprintf(buf, size, "%s", strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
}

/* The last word of a /proc/interrupts line: the handler's name. */
static void action_name(const char *line, char *out, size_t size)
{
	size_t len = strcspn(line, "\n");
	size_t start = len;

	while (start > 0 && line[start - 1] != ' ')
		start--;
	snprintf(out, size, "%.*s", (int)(len - start), line + start);
}

unsigned long long kb_irqs_fired(const unsigned *irqs, int n, unsigned long long *each,
				 char (*names)[32])
{
	unsigned long long total = 0;
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f || n <= 0) {
		if (f)
			fclose(f);
		return 0;
	}
	/* The header names the CPUs; each line is "IRQ: count count ... chip name". */
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *end;
		unsigned long irq = strtoul(p, &end, 10);
		unsigned long long sum = 0;
		int which = -1;

		if (end == p || *end != ':')
			continue;
		for (int i = 0; i < n; i++)
			if (irqs[i] == irq)
				which = i;
		if (which < 0)
			continue;
		for (p = end + 1;;) {
			unsigned long long c = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += c;
			p = end;
		}
		total += sum;
		if (each)
			each[which] = sum;
		if (names)
			action_name(line, names[which], sizeof(names[which]));
	}
	free(line);
	fclose(f);
	return total;
}
