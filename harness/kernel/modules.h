/* modules.h - resolves the guest's module list through modules.dep. */
#ifndef HB_MODULES_H
#define HB_MODULES_H

#include <stddef.h>

/* The largest modules.dep read (a whole Debian kernel's is under 1 MiB). */
#define HB_MODULES_DEP_MAX (16L * 1024 * 1024)

struct hb_modfile {
	char name[64];	     /* basename without .ko[.xz|.zst|.gz], e.g. kvm-amd */
	char path[512];	     /* absolute path of the file in the kernel's tree */
	char params[128];    /* only for the module asked for, never its deps */
};

/* Resolve wanted modules ("[workload] name params" lines, '#' comments)
 * against modules.dep text; dependencies come first, each module once.
 * Names that modules.dep lacks are skipped (built in, or absent). A line
 * with a "[workload]" prefix is only for suites that run that workload:
 * skipped unless workloads (NULL-terminated, the suite's workload names)
 * holds it; workloads NULL takes every line. Returns the count. */
size_t hb_modules_resolve(const char *moddir, const char *dep_text, const char *wanted,
			  const char *const *workloads, struct hb_modfile *out, size_t max);
/* "kvm_amd" and "kvm-amd" name the same module. */
int hb_modname_eq(const char *a, const char *b);

#endif
