/* sysinfo.h - what this machine is, read the same way by the host (doctor,
 * result.json's environment) and the guest (runner, kvm-map, access):
 * whole files, /proc/cpuinfo fields and flags, the KVM vendor module,
 * sysfs choice knobs. */
#ifndef HB_SYSINFO_H
#define HB_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

/* The whole file, NUL-terminated (procfs files included, whose size is 0);
 * malloc'd, *len (if not NULL) its length. NULL with errno set on error:
 * a regular file (or /dev/null) of at most HB_USERFILE_ANY_MAX bytes only,
 * opened without blocking (hb_userfile_read, lib/userfile.h). */
char *hb_slurp(const char *path, size_t *len);

/* The value of the first "field<blanks>: value" line of cpuinfo text, cut
 * at the line end, into buf. 0, or -ENOENT when no line has that field. */
int hb_cpuinfo_field(const char *cpuinfo, const char *field, char *buf, size_t len);
/* flag is a whole word of the first "flags" line of cpuinfo text. */
bool hb_cpuinfo_has_flag(const char *cpuinfo, const char *flag);
/* The same, on this machine's /proc/cpuinfo (false when it cannot be read). */
bool hb_cpu_has_flag(const char *flag);

/* The loaded KVM vendor module: "kvm_pvm", "kvm_amd", "kvm_intel", or
 * "unknown" when none is. kvm_pvm is checked first: it serves /dev/kvm even
 * where kvm_amd or kvm_intel is loaded as well. */
const char *hb_kvm_vendor_module(void);

/* The active value of a "[bracketed]" sysfs choice knob (shmem_enabled:
 * "always within_size advise [never] deny force" gives "never"), the whole
 * first line if it has no brackets, or "" when it cannot be read. */
void hb_knob_active(const char *path, char *buf, size_t len);

#endif
