/* sysinfo.c - files, /proc/cpuinfo and the KVM module (sysinfo.h). */
#define _GNU_SOURCE
#include "sysinfo.h"
#include "userfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *hb_slurp(const char *path, size_t *len)
{
	/* the bounded reader (userfile.h): a FIFO or device is refused at
	 * once, never waited for or read without end */
	return hb_userfile_read(path, HB_USERFILE_ANY_MAX, len, NULL, 0);
}

/* The line of cpuinfo text whose key (before blanks and ':') is field:
 * its value's start and length, or NULL. */
static const char *cpuinfo_line(const char *text, const char *field, size_t *vlen)
{
	size_t fl = strlen(field);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p + fl;

		if (strncmp(p, field, fl))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		*vlen = strcspn(q, "\n");
		return q;
	}
	return NULL;
}

int hb_cpuinfo_field(const char *cpuinfo, const char *field, char *buf, size_t len)
{
	size_t vl;
	const char *v = cpuinfo ? cpuinfo_line(cpuinfo, field, &vl) : NULL;

	if (len)
		buf[0] = 0;
	if (!v)
		return -ENOENT;
	snprintf(buf, len, "%.*s", (int)vl, v);
	return 0;
}

bool hb_cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	size_t vl, fl = strlen(flag);
	const char *v = cpuinfo ? cpuinfo_line(cpuinfo, "flags", &vl) : NULL;

	if (!v || !fl)
		return false;
	for (const char *end = v + vl, *w = v; w < end;) {
		size_t wl;

		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		wl = 0;
		while (w + wl < end && w[wl] != ' ' && w[wl] != '\t')
			wl++;
		if (wl == fl && !strncmp(w, flag, fl))
			return true;
		w += wl;
	}
	return false;
}

bool hb_cpu_has_flag(const char *flag)
{
	char *text = hb_slurp("/proc/cpuinfo", NULL);
	bool has = hb_cpuinfo_has_flag(text, flag);

	free(text);
	return has;
}

const char *hb_kvm_vendor_module(void)
{
	if (access("/sys/module/kvm_pvm", F_OK) == 0)
		return "kvm_pvm";
	if (access("/sys/module/kvm_amd", F_OK) == 0)
		return "kvm_amd";
	if (access("/sys/module/kvm_intel", F_OK) == 0)
		return "kvm_intel";
	return "unknown";
}

void hb_knob_active(const char *path, char *buf, size_t len)
{
	char *raw = hb_slurp(path, NULL);
	char *a, *b;

	if (len)
		buf[0] = 0;
	if (!raw)
		return;
	raw[strcspn(raw, "\n")] = 0;
	a = strchr(raw, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b) {
		*b = 0;
		snprintf(buf, len, "%s", a + 1);
	} else {
		snprintf(buf, len, "%s", raw);
	}
	free(raw);
}
