/* host_state.h - knob save/restore and the host-state journal of the runner
 * (host_state.c): what a workload or a killed run changed is put back. */
#ifndef HB_HOST_STATE_H
#define HB_HOST_STATE_H

#include <stdbool.h>
#include <stddef.h>

/* Saves every writable THP knob and a few vm sysctls; hb_knobs_restore()
 * writes back those that changed and returns how many. */
void hb_knobs_save(void);
int hb_knobs_restore(void);

/* Locks /run/hugebench, undoes what a killed run left (saying so on stderr
 * and as a host_state_restored event on fd) and starts this run's journal.
 * 0, or -1 with why. pid1: inside a guest (creates /run first). */
int hb_host_state_begin(bool pid1, int fd, char *why, size_t len);
/* After a repetition: undoes what its workload recorded and did not remove
 * (a leftovers_removed event on fd). */
void hb_host_state_after_workload(const char *workload, int rep, int fd);
/* End of the suite: everything put back, the journal removed, unlocked. */
void hb_host_state_end(void);
/* In a forked child: close the lock folder, and the journal too unless
 * keep_journal (a workload appends to it through hb_host_state_note()). */
void hb_host_state_child(bool keep_journal);

/* For workloads (target host): record (add) or clear something this
 * workload set up on the host (kind "zram", "swap", "cgroup", "memctl"), in
 * the runner's journal, so a killed run is undone at the next start
 * (runner.c). No-op in a guest. */
void hb_host_state_note(bool add, const char *kind, const char *arg);

#endif
