/* boot.h - one boot of a run (boot.c), the unit run groups and A/B runs
 * (run.c) are made of. */
#ifndef HB_BOOT_H
#define HB_BOOT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "backend.h"
#include "kernel.h"
#include "result.h"
#include "target.h"

struct run_opts {
	const char *target, *suite, *accel, *results, *modules, *extra_cmdline, *guest_ram;
	const char *backend, *connect;	/* "qemu" or "libvirt"; libvirt URI or NULL */
	const char *clock;		/* --clock auto|virtual|wall (docs/compare.md, "Guest time") */
	const char *tcg_threads;	/* --tcg-threads single|multi (docs/running.md) */
	double timeout_s, stall_s;
	int memory_mb, vcpus, boots, jobs;
	int max_output_mb;		/* --max-output: console or stream past it stops the guest */
	bool vcpus_given;		/* --vcpus on the command line (else the default) */
	bool strict;			/* --strict: unverified expectations that disagree fail */
	const char *accepted;		/* --accepted FILE (default configs/accepted-expectations.json) */
};

/* What every boot of a run shares: prepared once. */
struct run_ctx {
	struct run_opts o;
	struct hb_target t;
	struct hb_kernel k;
	char suite_path[PATH_MAX], suite_name[64], *suite_text;
	bool ext_tools;			  /* the suite runs fio, stress-ng or kselftest */
	struct hb_backend be;		  /* --backend, prepared: QEMU version, libvirt URI */
	char initrd[PATH_MAX], sha[65], accel[8], accel_reason[256], cmdline[1024];
	char initrd_sha[65];		  /* reproducible: equal across runs of one input */
	char clock[8], clock_reason[200]; /* "virtual" (QEMU -icount) or "wall", and why */
	char vcpus_reason[240];		  /* why o.vcpus differs from what was asked, or "" */
	bool have_image;
};

/* One boot: its folder and its result document. */
struct boot {
	char dir[PATH_MAX], run_id[256];
	json_t *res;
	int rc;
	const char *verdict;
};

/* Resolve --suite to a file and a name and check it against the guest's
 * parameter tables (hb-guest --describe): a typo fails before any boot.
 * *tools (tools may be NULL) gets whether a workload of the suite runs an
 * external tool (its descriptor's tool: fio, stress-ng, kselftest). */
int hb_boot_load_suite(const char *suite, char *path, size_t plen, char *name, size_t nlen,
		       char **text, bool *tools);
/* The same checks, for a suite named elsewhere (a matrix's suite=): 0 or
 * an exit code, the one error line starting with "where: ". */
int hb_boot_check_suite(const char *where, const char *suite);
/* The guest clock for a run on accel: "virtual" (QEMU -icount) under TCG
 * unless requested is "wall"; "wall" under KVM. requested is auto, virtual
 * or wall (run.c refuses virtual with --accel kvm before this); tcg_multi
 * (--tcg-threads multi) makes it wall under TCG: no instruction counter. */
void hb_clock_choose(const char *requested, const char *accel, bool tcg_multi, char *clock,
		     size_t clen, char *reason, size_t rlen);
/* Under the virtual clock a kernel before 6.12 never brings up its second
 * vCPU (docs/guest-time.md, "SMP under -icount"): the vCPUs such a boot gets
 * when the user did not ask for a number (1), or the warning when they did.
 * Returns the vCPUs to use; reason gets why ("" when unchanged). */
int hb_vcpus_choose(const char *clock, const char *release, int vcpus, bool given, char *reason,
		    size_t rlen);
/* Kernel, guest image, QEMU and accelerator: once per run; an exit code. */
int hb_boot_prepare(struct run_ctx *c, char *err, size_t errlen);
/* b's folder (parent itself, or parent/boot-i in a group) with an
 * `incomplete` result.json; 0 or -1. */
int hb_boot_open(const struct run_ctx *c, const char *parent, const char *group_id, int i,
		 struct boot *b);
/* One guest boot into b->dir; the exit code of `hugebench run` for it. */
int hb_boot_vm(const struct run_ctx *c, struct boot *b, bool quiet);
/* Copies a source build's log (builds/<recipe>-<key>/build.log, in the
 * build account's folder) into the run folder dir as root would never
 * follow a link the account planted there (hb_copy_nofollow): 0; -1 with
 * one warning line and nothing copied. Nothing to do for log "" or
 * missing. */
int hb_boot_save_build_log(const char *log, const char *dir);
/* k->boot_image: a private copy of a source build's k->image in
 * <cache>/images (mkstemp, mode 0600), made with hb_copy_nofollow_fd (a
 * link, a hard link, a linked folder on the way or a FIFO is refused), so
 * that nothing the build account swaps in later is hashed or booted. 0, or
 * -1 with one line in err and boot_image "". The caller removes the copy. */
int hb_boot_private_image(struct hb_kernel *k, char *err, size_t errlen);
/* hb_boot_vm in a child process; its exit status is the boot's exit code. */
pid_t hb_boot_fork(const struct run_ctx *c, struct boot *b);
/* TARGET=host: the suite on the running kernel into dir. */
int hb_boot_host(const struct run_opts *o, const char *dir, const char *suite_path, json_t *res);
/* Reads stream + console, sets workloads, issues and the verdict, saves
 * result.json; returns the exit code. */
int hb_boot_finish(const char *dir, json_t *res, enum hb_run_end end, const char *infra_error);

#endif
