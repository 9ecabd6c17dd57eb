/*
 * A network device's interrupt lines and how often they fired: the
 * evidence of whether interrupts were masked (IRQ suspension) or only
 * delayed (defer-hard-irqs). Software devices (veth) have none.
 */
#ifndef KB_DEV_IRQS_H
#define KB_DEV_IRQS_H

#include <stddef.h>

#define KB_DEV_MAX_IRQS 64

/*
 * The IRQ numbers of dev as seen from this namespace's sysfs: its PCI
 * function's MSI/MSI-X vectors (for virtio-net, those of the virtio
 * device's parent), else its legacy line. Read them before moving dev into
 * another namespace (sysfs shows this namespace's devices only). The count
 * found, at most max; 0 for a device with no interrupts.
 */
int kb_dev_irqs(const char *dev, unsigned *irqs, int max);

/* The name of dev's driver ("virtio_net"), or "" for a device without one (veth). */
void kb_dev_driver(const char *dev, char *buf, size_t size);

/*
 * The interrupts fired so far on those lines, all CPUs summed
 * (/proc/interrupts); each line's count into each[i] and its action name
 * ("virtio0-input.0") into names[i] when those are not NULL.
 */
unsigned long long kb_irqs_fired(const unsigned *irqs, int n, unsigned long long *each,
				 char (*names)[32]);

#endif
