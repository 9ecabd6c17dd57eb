/* Deleting the queue shapers a benchmark set, on the undo list (and journaled on a real device). */
#ifndef KB_SHAPER_UNDO_H
#define KB_SHAPER_UNDO_H

/*
 * Registers deleting the queue shapers 0..queues-1 of ifindex in namespace
 * ns (-1: this one, a real device, so the deletion is journaled as well: a
 * killed kbench's shapers go at the next start). Call before setting them.
 * 0 or -errno.
 */
int kb_shaper_undo_queues(int ns, unsigned ifindex, unsigned queues);

#endif
