/* ext_run.h - running an external tool (fio, stress-ng, a kselftest) from a
 * guest workload: argv arrays only, fork/exec with a time limit, output to a
 * file; plus where the tools live (/opt/hb, the initramfs layer the host
 * appends when a suite names them: guest-images/mkextlayer.sh). */
#ifndef HB_EXT_RUN_H
#define HB_EXT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "hb.h"
#include "smaps.h"

#define HB_EXT_ROOT "/opt/hb"

/* What a tool did to huge pages while it ran, sampled from /proc/meminfo
 * every 50 ms: the highest rise of each counter above its value at the
 * start, in kB. How hugebench judges a tool whose own output cannot say
 * whether its memory was huge (issue 15) -- on outcomes, pages present and
 * mapped, not on allocation counters (issue 25). A page that lived less than
 * a sampling period can be missed: a peak of 0 is "not seen", which the
 * subject checks only ask of tools that hold their memory for seconds. */
struct hb_ext_peak {
	long long huge_kb; /* ShmemHugePages: huge shmem pages present */
	long long pmd_kb;  /* ShmemPmdMapped: ... and mapped by PMD */
	long long anon_kb; /* AnonHugePages: anonymous THP present */
};

/* What the tool's own processes mapped, sampled per mapping (issue 22): at
 * every sample (50 ms) hb_ext_run() reads /proc/<pid>/smaps of each process
 * of the tool (its process group and every descendant: fio's job processes
 * call setsid()) and adds up the mappings `sel` chooses
 * (lib/smaps.h): a job's file, a stressor's tmpfs files, an anonymous
 * buffer. The native workloads' rule (hb_check_pmd_subject: every 2 MiB
 * extent PMD-mapped) is then asked of one mapping at one instant, not of a
 * system-wide counter that any other mapping can move. */
struct hb_ext_watch {
	struct hb_smaps_sel sel; /* set by the caller; the rest by hb_ext_run */
	int samples;		 /* samples taken while the tool ran */
	int seen;		 /* samples that found a chosen mapping */
	struct hb_smaps_sum best; /* the sample with the most PMD-mapped kB */
	long long full_kb;	  /* largest mapping seen with every extent PMD-mapped */
	long long ext_kb;	  /* largest PMD-mappable kB of one sample */
};

/* Runs argv (argv[0] an absolute path) in its own process group with env
 * (NULL-terminated "KEY=value" strings added to a minimal PATH/HOME
 * environment), in cwd, stdout and stderr to log (created, truncated). uid
 * >= 0: setgid/setuid to it first. After limit_s the group gets SIGTERM, 5 s
 * later SIGKILL. Returns the exit status (0..255), -1 when it was killed by a
 * signal or the limit (*timed_out tells which), -2 when it could not start
 * (errno kept for hb_error). peak (may be NULL): the huge page peaks above;
 * watch (may be NULL): the per-mapping samples above. */
int hb_ext_run(char *const argv[], char *const env[], const char *cwd, const char *log, int limit_s,
	       int uid, bool *timed_out, struct hb_ext_peak *peak, struct hb_ext_watch *watch);
/* The whole file, NUL-terminated, at most max bytes (the rest dropped);
 * NULL when it cannot be read. Free it. */
char *hb_ext_slurp(const char *path, size_t max, size_t *len);
/* Records the layer's version line for tool ("fio", "stress_ng",
 * "kselftest") as a note and returns 0; hb_skip()s and returns -1 when the
 * layer is absent (the suite was run without it). */
int hb_ext_need(struct hb_ctx *ctx, const char *tool, char *version, size_t len);
/* The tool's raw output as an "ext_output" event (first 12 KiB), so that a
 * result can be read back and a parser checked against it. */
void hb_ext_emit_output(struct hb_ctx *ctx, const char *tool, const char *name, const char *text);

#endif
