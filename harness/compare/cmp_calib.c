/* cmp_calib.c - calibrations: the boot-to-boot noise of every metric,
 * measured on this host from an A/A group of boots (`hugebench calibrate`),
 * and which one a comparison may use. The file itself (reading, writing,
 * looking a metric up) is cmp_calib_file.c's.
 *
 * A calibration is keyed by host CPU model, accelerator, clock (virtual or
 * wall), suite and kernel family (major.minor of the kernel release: 6.12
 * for 6.12.118+deb12-...): results/calibration/<cpu-hash>-<accelerator>-
 * <clock>-<suite>-<family>.json. On the virtual clock the host CPU is left
 * out (anycpu-<accelerator>-virtual-...): guest time counts the guest's
 * instructions of TCG's -cpu max, and 30 boots on an AMD EPYC host matched
 * 30 on an Intel Xeon host metric by metric (docs/compare.md, "Across host
 * CPUs"); a file made on another CPU is used with that said in its note,
 * and one made before, under this CPU's name, is still found. It records
 * every boot it was measured on (clock, vCPUs, memory MB, QEMU version,
 * host kernel) and, per metric
 * ("<workload>[#k].<metric>"), the sd of the log boot centers (the same
 * centers the rule uses: cmp_rule.c), their geometric mean, the number of
 * boots and the centers. Measuring refuses boots that differ on those five
 * fields. compare-report uses a calibration only when every boot of both
 * sides matches the key and every recorded boot on those five fields: the
 * noise of a virtual clock is not that of a wall clock, nor that of
 * another guest size, QEMU or host kernel.
 */
#define _DEFAULT_SOURCE
#include "cmp_calib.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void hb_cmp_kernel_family(const char *release, char *buf, size_t len)
{
	const char *s = release ? release : "";
	size_t i = 0;

	while (isdigit((unsigned char)s[i]))
		i++;
	if (i && s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++;
		snprintf(buf, len, "%.*s", (int)i, s);
		return;
	}
	snprintf(buf, len, "unknown");
}

/* A word of a calibration file's name: letters, digits and "._+"; a suite
 * may also hold '-' (configs/real-bugs-races.suite): the name is a lookup
 * key, never split again, and no other word of it holds one, so the suite
 * is the part between the clock and the last '-'. */
static bool hb_cmp_safe_word(const char *s, bool dash)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(dash ? "._+-" : "._+", *s))
			return false;
	return true;
}

static uint64_t hb_cmp_fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

bool hb_cmp_clock_virtual(const struct hb_cmp_run *r)
{
	return r->clock && !strcmp(r->clock, "virtual");
}

/* The file name keyed by host CPU (by_cpu: every wall-clock calibration's,
 * and a virtual-clock one's made before 2026-12-07, still found by
 * hb_cmp_calib_find) or by none ("anycpu": the virtual clock counts the
 * guest instructions of TCG's -cpu max, which the host CPU does not change:
 * docs/compare.md, "Across host CPUs"). */
static int hb_cmp_calib_name_as(const struct hb_cmp_run *r, bool by_cpu, char *buf, size_t len)
{
	char fam[32], cpu[16] = "anycpu";

	hb_cmp_kernel_family(r->kernel_release, fam, sizeof(fam));
	if (!r->host_cpu || !hb_cmp_safe_word(r->accelerator, false) ||
	    !hb_cmp_safe_word(r->suite, true) || !hb_cmp_safe_word(r->clock, false) ||
	    !strcmp(fam, "unknown"))
		return -1;
	if (by_cpu)
		snprintf(cpu, sizeof(cpu), "%012llx",
			 (unsigned long long)(hb_cmp_fnv(r->host_cpu) >> 16));
	snprintf(buf, len, "%s-%s-%s-%s-%s.json", cpu, r->accelerator, r->clock, r->suite, fam);
	return 0;
}

int hb_cmp_calib_name(const struct hb_cmp_run *r, char *buf, size_t len)
{
	return hb_cmp_calib_name_as(r, !hb_cmp_clock_virtual(r), buf, len);
}

/* The name of version 1 (no clock), to say why an old file is not used. */
static void hb_cmp_calib_name1(const struct hb_cmp_run *r, char *buf, size_t len)
{
	char fam[32];

	hb_cmp_kernel_family(r->kernel_release, fam, sizeof(fam));
	snprintf(buf, len, "%012llx-%s-%s-%s.json",
		 (unsigned long long)(hb_cmp_fnv(r->host_cpu) >> 16), r->accelerator, r->suite, fam);
}

/* ---- the environment of a boot ---------------------------------------------------- */

enum { HB_CMP_ENV_CLOCK, HB_CMP_ENV_VCPUS, HB_CMP_ENV_MEMORY, HB_CMP_ENV_QEMU,
       HB_CMP_ENV_HOST_KERNEL, HB_CMP_ENV_N };

static const char *const hb_cmp_env_names[HB_CMP_ENV_N] = {
	"clock", "vCPUs", "memory MB", "QEMU version", "host kernel",
};

/* Field f of a boot as text; NULL when unknown. */
static const char *hb_cmp_env_val(const char *clock, long vcpus, long memory_mb,
				  const char *qemu, const char *host_kernel, int f, char *buf,
				  size_t len)
{
	long v = f == HB_CMP_ENV_VCPUS ? vcpus : memory_mb;

	switch (f) {
	case HB_CMP_ENV_CLOCK: return clock;
	case HB_CMP_ENV_QEMU: return qemu;
	case HB_CMP_ENV_HOST_KERNEL: return host_kernel;
	default:
		if (v < 0)
			return NULL;
		snprintf(buf, len, "%ld", v);
		return buf;
	}
}

static const char *hb_cmp_run_env(const struct hb_cmp_run *r, int f, char *buf, size_t len)
{
	return hb_cmp_env_val(r->clock, r->vcpus, r->memory_mb, r->qemu_version, r->host_kernel, f,
			      buf, len);
}

static const char *hb_cmp_boot_env(const struct hb_cmp_calib_boot *b, int f, char *buf,
				   size_t len)
{
	return hb_cmp_env_val(b->clock, b->vcpus, b->memory_mb, b->qemu_version, b->host_kernel, f,
			      buf, len);
}

/* Two values of a field disagree: both known and different, or known on
 * one side only (unknown on both is no evidence of a difference). */
static bool hb_cmp_env_differs(const char *x, const char *y)
{
	return (!x) != (!y) || (x && y && strcmp(x, y));
}

/* ---- measuring ----------------------------------------------------------------- */

double hb_cmp_calib_scale(const double *c, size_t n, size_t *used, size_t *dropped)
{
	double *l = n ? malloc(n * sizeof(*l)) : NULL, sd;
	size_t d = n;

	if (used)
		*used = n;
	if (dropped)
		*dropped = n;
	if (!l)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(c[i] > 0)) {
			free(l);
			return NAN;
		}
		l[i] = log(c[i]);
	}
	/* the boot farthest from the median, and the robust scale of the
	 * others; it is an outlier boot only when it is far beyond that noise
	 * and more than 2x off (the rule's criterion for compared boots) */
	sd = hb_stats_sd_drop1(l, n, &d);
	if (d < n && fabs(l[d] - hb_stats_median(l, n)) >
			     fmax(log(HB_CMP_OUTLIER_RATIO), HB_CMP_OUTLIER_SDS * sd)) {
		l[d] = l[n - 1];
		sd = hb_stats_sd(l, n - 1);
		if (used)
			*used = n - 1;
		if (dropped)
			*dropped = d;
	} else {
		sd = hb_stats_sd(l, n);
	}
	free(l);
	return sd;
}

void hb_cmp_calib_span(const double *c, size_t n, size_t dropped, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (i == dropped)
			continue;
		if (!(c[i] > 0)) {
			*lo = *hi = NAN;
			return;
		}
		*lo = fmin(*lo, log(c[i]));
		*hi = fmax(*hi, log(c[i]));
	}
	if (*lo > *hi)
		*lo = *hi = NAN;
}

/* The boots' own time span and load (issue 34): from each boot's `started`
 * and `ended` (ISO 8601 UTC, so they sort as strings); a boot without them
 * (recorded before they existed) has only `created`, which is the run's
 * start for every boot of a group: the span is then not exact, and says
 * so. The load is the lowest and highest 1-minute load average the boots
 * recorded at their start and end, not the reader's load at reading. */
static void hb_cmp_calib_span_load(struct hb_cmp_calib *c, struct hb_cmp_run *const *ok, size_t n)
{
	c->boots_span_exact = n > 0;
	c->boots_load1[0] = c->boots_load1[1] = NAN;
	c->boots_with_load = 0;
	for (size_t i = 0; i < n; i++) {
		const char *from = ok[i]->started ? ok[i]->started : ok[i]->created;
		const char *to = ok[i]->ended ? ok[i]->ended : from;
		bool loaded = false;

		c->boots_span_exact &= ok[i]->started && ok[i]->ended;
		if (from && (!c->boots_from || strcmp(from, c->boots_from) < 0)) {
			free(c->boots_from);
			c->boots_from = strdup(from);
		}
		if (to && (!c->boots_to || strcmp(to, c->boots_to) > 0)) {
			free(c->boots_to);
			c->boots_to = strdup(to);
		}
		for (int k = 0; k < 2; k++) {
			double l = k ? ok[i]->load_ended[0] : ok[i]->load_started[0];

			if (isnan(l))
				continue;
			loaded = true;
			if (isnan(c->boots_load1[0]) || l < c->boots_load1[0])
				c->boots_load1[0] = l;
			if (isnan(c->boots_load1[1]) || l > c->boots_load1[1])
				c->boots_load1[1] = l;
		}
		c->boots_with_load += loaded;
	}
}

struct hb_cmp_calib *hb_cmp_calib_measure(const struct hb_cmp_group *g, char *err, size_t errlen)
{
	struct hb_cmp_run **ok = hb_cmp_xcalloc(g->n, sizeof(*ok));
	struct hb_cmp_group *use = NULL;
	struct hb_cmp_thresholds th;
	struct hb_cmp_calib *c = NULL;
	struct hb_cmp_pair p = { 0 };
	struct hb_cmp_opts o;
	size_t n = 0, cap = 0;
	char name0[256], name[256], fam[32];

	if (!ok) {
		snprintf(err, errlen, "%s: out of memory", g->path);
		return NULL;
	}
	/* boots that ran to the end: pass, kernel-warning or fail */
	for (size_t i = 0; i < g->n; i++)
		if (hb_verdict_rank(g->boots[i]->verdict) >= 0 &&
		    hb_verdict_rank(g->boots[i]->verdict) < hb_verdict_rank("error"))
			ok[n++] = g->boots[i];
	if (n < HB_CMP_MIN_BOOTS) {
		snprintf(err, errlen, "%s: %zu usable boot%s (of %zu; boots that ended in error, "
			 "timeout, panic or incomplete are left out): a calibration needs >= %d "
			 "(hugebench calibrate TARGET --boots 10)", g->path, n, n == 1 ? "" : "s", g->n,
			 HB_CMP_MIN_BOOTS);
		goto out;
	}
	if (hb_cmp_calib_name(ok[0], name0, sizeof(name0))) {
		snprintf(err, errlen, "%s: host CPU, accelerator, suite or kernel release unknown or "
			 "not usable in a file name: no calibration key", ok[0]->path);
		goto out;
	}
	for (size_t i = 1; i < n; i++)
		if (hb_cmp_calib_name(ok[i], name, sizeof(name)) || strcmp(name, name0) ||
		    hb_cmp_env_differs(ok[i]->host_cpu, ok[0]->host_cpu)) {
			snprintf(err, errlen, "%s: its boots differ in host CPU, accelerator, clock, "
				 "suite or kernel family (%s vs %s): a calibration describes one "
				 "environment", g->path, ok[i]->path, ok[0]->path);
			goto out;
		}
	for (size_t i = 1; i < n; i++)
		for (int f = 0; f < HB_CMP_ENV_N; f++) {
			char b0[32], b1[32];
			const char *v0 = hb_cmp_run_env(ok[0], f, b0, sizeof(b0));
			const char *v1 = hb_cmp_run_env(ok[i], f, b1, sizeof(b1));

			if (hb_cmp_env_differs(v0, v1)) {
				char c0[96], c1[96];

				hb_cmp_clean(c0, sizeof(c0), v0 ? v0 : "unknown");
				hb_cmp_clean(c1, sizeof(c1), v1 ? v1 : "unknown");
				snprintf(err, errlen, "%s: its boots differ in %s (%s in %s, %s in %s): a "
					 "calibration describes one environment; calibrate boots made "
					 "alike", g->path, hb_cmp_env_names[f], c0, ok[0]->path, c1,
					 ok[i]->path);
				goto out;
			}
		}
	use = hb_cmp_group_view(ok, n, g->path);
	c = calloc(1, sizeof(*c));
	if (!use || !c)
		goto oom;
	/* the rule's own boot centers: the group compared with itself */
	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	if (hb_cmp_pair_build_groups(use, use, &th, &o, &p))
		goto oom;
	hb_cmp_kernel_family(ok[0]->kernel_release, fam, sizeof(fam));
	c->host_cpu = hb_cmp_calib_dup(ok[0]->host_cpu);
	c->accelerator = hb_cmp_calib_dup(ok[0]->accelerator);
	c->suite = hb_cmp_calib_dup(ok[0]->suite);
	c->family = hb_cmp_calib_dup(fam);
	c->target = hb_cmp_calib_dup(ok[0]->target);
	c->group = hb_cmp_calib_dup(g->group_id ? g->group_id : g->path);
	c->path = hb_cmp_calib_dup(name0);
	c->clock = hb_cmp_calib_dup(ok[0]->clock);
	c->center_rule = HB_CMP_CENTER_RULE;
	{
		/* how it was made: where, under what load, from which boots */
		char host[256];
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		c->host = gethostname(host, sizeof(host)) ? NULL : strdup(host);
		c->host_cpus = cpus > 0 ? cpus : -1;
		if (getloadavg(c->load, 3) != 3)
			c->load[0] = c->load[1] = c->load[2] = NAN;
		hb_cmp_calib_span_load(c, ok, n);
	}
	c->boots = n;
	c->boot = hb_cmp_xcalloc(n, sizeof(*c->boot));
	if (!c->host_cpu || !c->accelerator || !c->suite || !c->family || !c->target || !c->group ||
	    !c->path || !c->clock || !c->boot)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct hb_cmp_calib_boot *b = &c->boot[i];

		b->run = hb_cmp_calib_dup(ok[i]->run_id ? ok[i]->run_id : ok[i]->path);
		b->clock = hb_cmp_calib_dup(ok[i]->clock);
		b->qemu_version = ok[i]->qemu_version ? strdup(ok[i]->qemu_version) : NULL;
		b->host_kernel = ok[i]->host_kernel ? strdup(ok[i]->host_kernel) : NULL;
		b->vcpus = ok[i]->vcpus;
		b->memory_mb = ok[i]->memory_mb;
		b->started = ok[i]->started ? strdup(ok[i]->started) : NULL;
		b->ended = ok[i]->ended ? strdup(ok[i]->ended) : NULL;
		b->load1[0] = ok[i]->load_started[0];
		b->load1[1] = ok[i]->load_ended[0];
		if ((ok[i]->started && !b->started) || (ok[i]->ended && !b->ended))
			goto oom;
		if (!b->run || !b->clock || (ok[i]->qemu_version && !b->qemu_version) ||
		    (ok[i]->host_kernel && !b->host_kernel))
			goto oom;
	}
	for (size_t i = 0; i < p.n_m; i++) {
		const struct hb_cmp_mres *r = &p.m[i];
		struct hb_cmp_calib_metric m = { 0 };
		double *l;
		bool pos = r->na >= 2;

		if (r->better == HB_CMP_INFO || !r->ca)
			continue;
		for (size_t k = 0; pos && k < r->na; k++)
			pos = r->ca[k] > 0;
		if (!pos)
			continue; /* zero or negative centers have no log scale */
		l = malloc(r->na * sizeof(*l));
		if (!l)
			goto oom;
		for (size_t k = 0; k < r->na; k++)
			l[k] = log(r->ca[k]);
		/* exactly 0 for boots identical to the nanosecond */
		m.sd_log = hb_stats_sd(l, r->na);
		m.center = exp(hb_stats_mean(l, r->na));
		free(l);
		m.n = r->na;
		m.sd_robust = hb_cmp_calib_scale(r->ca, r->na, &m.used, &m.dropped);
		m.key = malloc(strlen(r->workload) + strlen(r->name) + 2);
		m.centers = malloc(r->na * sizeof(double));
		if (!m.key || !m.centers) {
			free(m.key);
			free(m.centers);
			goto oom;
		}
		sprintf(m.key, "%s.%s", r->workload, r->name);
		memcpy(m.centers, r->ca, r->na * sizeof(double));
		if (hb_cmp_append((void **)&c->m, &c->n, &cap, sizeof(m), &m)) {
			free(m.key);
			free(m.centers);
			goto oom;
		}
	}
	if (hb_cmp_calib_index(c))
		goto oom;
	{
		char iso[32];
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
		c->created = strdup(iso);
	}
	if (!c->created)
		goto oom;
	goto out;
oom:
	snprintf(err, errlen, "%s: out of memory", g->path);
	hb_cmp_calib_free(c);
	c = NULL;
out:
	hb_cmp_pair_free(&p);
	hb_cmp_group_free(use);
	free(ok);
	return c;
}

/* ---- finding the one for a comparison ----------------------------------------------- */

/* Which of the calibration key's fields differs between two boots. */
static const char *hb_cmp_key_diff(const struct hb_cmp_run *x, const struct hb_cmp_run *y,
				   const char **vx, const char **vy, char *fx, char *fy, size_t len)
{
	hb_cmp_kernel_family(x->kernel_release, fx, len);
	hb_cmp_kernel_family(y->kernel_release, fy, len);
	*vx = fx;
	*vy = fy;
	if (hb_cmp_env_differs(x->host_cpu, y->host_cpu)) {
		*vx = x->host_cpu;
		*vy = y->host_cpu;
		return "host CPU";
	}
	if (hb_cmp_env_differs(x->accelerator, y->accelerator)) {
		*vx = x->accelerator;
		*vy = y->accelerator;
		return "accelerator";
	}
	if (strcmp(x->clock, y->clock)) {
		*vx = x->clock;
		*vy = y->clock;
		return "clock";
	}
	if (hb_cmp_env_differs(x->suite, y->suite)) {
		*vx = x->suite;
		*vy = y->suite;
		return "suite";
	}
	return "kernel family";
}

/* The calibration file name all boots of both sides share; -1 with a note. */
static int hb_cmp_common_name(const struct hb_cmp_group *a, const struct hb_cmp_group *b,
			      char *name, size_t len, char *note, size_t notelen)
{
	char other[256];
	const struct hb_cmp_group *g[2] = { a, b };

	if (hb_cmp_calib_name(a->boots[0], name, len)) {
		snprintf(note, notelen, "none: BASE's host CPU, accelerator, clock, suite or kernel "
			 "release is unknown");
		return -1;
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < g[s]->n; i++)
			if (hb_cmp_calib_name(g[s]->boots[i], other, sizeof(other)) ||
			    strcmp(other, name)) {
				char fa[32], fb[32], ca[64], cb[64];
				const char *va, *vb;
				const char *what = hb_cmp_key_diff(a->boots[0], g[s]->boots[i], &va, &vb,
								   fa, fb, sizeof(fa));

				hb_cmp_clean(ca, sizeof(ca), va ? va : "unknown");
				hb_cmp_clean(cb, sizeof(cb), vb ? vb : "unknown");
				snprintf(note, notelen, "none: the boots differ in %s (%s vs %s); a "
					 "calibration is for one host CPU, accelerator, clock, suite and "
					 "kernel family", what, ca, cb);
				return -1;
			}
	return 0;
}

/* Every boot of a and b against every boot the calibration was measured
 * on: 0, or -1 with the first difference in note. */
static int hb_cmp_calib_env_match(const struct hb_cmp_calib *c, const struct hb_cmp_group *a,
				  const struct hb_cmp_group *b, char *note, size_t notelen)
{
	for (int f = 0; f < HB_CMP_ENV_N; f++)
		for (int s = 0; s < 2; s++) {
			const struct hb_cmp_group *g = s ? b : a;

			for (size_t i = 0; i < g->n; i++)
				for (size_t k = 0; k < c->boots; k++) {
					char bx[32], by[32], cx[96], cy[96];
					const char *vc = hb_cmp_boot_env(&c->boot[k], f, bx, sizeof(bx));
					const char *vr = hb_cmp_run_env(g->boots[i], f, by, sizeof(by));

					if (!hb_cmp_env_differs(vc, vr))
						continue;
					hb_cmp_clean(cx, sizeof(cx), vc ? vc : "unknown");
					hb_cmp_clean(cy, sizeof(cy), vr ? vr : "unknown");
					snprintf(note, notelen, "none: %s was measured with %s %s (boot "
						 "%zu of %zu), %s boot %zu has %s; a calibration is used only "
						 "for boots made alike", c->path, hb_cmp_env_names[f], cx,
						 k + 1, c->boots, s ? "NEW" : "BASE", i + 1, cy);
					return -1;
				}
		}
	return 0;
}

/* Seconds since the epoch of an ISO-8601 UTC stamp "YYYY-MM-DDTHH:MM:SSZ"
 * (or its compact "YYYYMMDDTHHMMSSZ"); -1 when it is neither. */
static long long hb_cmp_iso_s(const char *s)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, se;

	if (!s || (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se) != 6 &&
		   sscanf(s, "%4d%2d%2dT%2d%2d%2d", &y, &mo, &d, &h, &mi, &se) != 6))
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	return (long long)timegm(&tm);
}

/* Warnings appended to the note of a calibration that is used: made on
 * another host than this one, or from boots much older than the compared
 * ones (a kernel, QEMU or host update since may have changed the noise). */
static void hb_cmp_calib_warn(const struct hb_cmp_calib *c, const struct hb_cmp_group *a,
			      const struct hb_cmp_group *b, char *note, size_t notelen)
{
	char host[256];
	long long made = hb_cmp_iso_s(c->boots_to ? c->boots_to : c->created), newest = -1;
	size_t l;

	for (int s = 0; s < 2; s++) {
		const struct hb_cmp_group *g = s ? b : a;

		for (size_t i = 0; i < g->n; i++) {
			const struct hb_cmp_run *r = g->boots[i];
			long long t = hb_cmp_iso_s(r->ended ? r->ended
						   : r->started ? r->started : r->created);

			if (t > newest)
				newest = t;
		}
	}
	l = strlen(note);
	if (c->host && !gethostname(host, sizeof(host)) && strcmp(host, c->host) && l < notelen)
		l += (size_t)snprintf(note + l, notelen - l, "; warning: made on host %s, this is %s",
				      c->host, host);
	if (made >= 0 && newest >= 0 && newest - made > HB_CMP_CALIB_STALE_DAYS * 86400LL &&
	    l < notelen)
		l += (size_t)snprintf(note + l, notelen - l, "; warning: its boots are %lld days older "
				      "than the compared ones (recalibrate after a host, QEMU or "
				      "kernel update)", (newest - made) / 86400);
	if (!strcmp(c->clock, "virtual") && l < notelen) {
		const char *other = NULL;

		for (int s = 0; s < 2 && !other; s++) {
			const struct hb_cmp_group *g = s ? b : a;

			for (size_t i = 0; i < g->n && !other; i++)
				if (hb_cmp_env_differs(c->host_cpu, g->boots[i]->host_cpu))
					other = g->boots[i]->host_cpu;
		}
		if (other) {
			char cc[96], co[96];

			hb_cmp_clean(cc, sizeof(cc), c->host_cpu);
			hb_cmp_clean(co, sizeof(co), other);
			l += (size_t)snprintf(note + l, notelen - l, "; measured on host CPU %s, "
					      "these boots ran on %s: used, the virtual clock does "
					      "not depend on it (docs/compare.md, Across host CPUs)",
					      cc, co);
		}
	}
	if ((a->n < HB_CMP_MIN_BOOTS || b->n < HB_CMP_MIN_BOOTS) &&
	    c->boots < HB_CMP_CALIB_BOOTS_FEW && l < notelen)
		l += (size_t)snprintf(note + l, notelen - l, "; warning: %zu boots: with fewer than %d "
				      "boots a side it alone judges, and a mode seen once in 10 boots "
				      "is missed a third of the time (2 + 2 A/A: 5.6 %% flagged with "
				      "10 boots, 0-0.6 %% with 30); calibrate %d", c->boots,
				      HB_CMP_MIN_BOOTS, HB_CMP_CALIB_BOOTS_FEW);
	if (!c->host && l < notelen)
		snprintf(note + l, notelen - l, "; made before calibrations recorded their host and "
			 "load");
}

int hb_cmp_calib_find(const char *where, const struct hb_cmp_group *a,
		      const struct hb_cmp_group *b, struct hb_cmp_calib **out, char *note,
		      size_t notelen)
{
	char name[256], path[4400], fam[32], err[1024];
	struct hb_cmp_calib *c;
	struct stat st;

	*out = NULL;
	if (!where) {
		snprintf(note, notelen, "none (no calibration folder or file given)");
		return 0;
	}
	if (hb_cmp_common_name(a, b, name, sizeof(name), note, notelen))
		return 0;
	if (!stat(where, &st) && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/%s", where, name);
		if (stat(path, &st) && hb_cmp_clock_virtual(a->boots[0])) {
			/* a virtual-clock file made before the name left the
			 * host CPU out: this CPU's */
			char cpu[256];

			if (!hb_cmp_calib_name_as(a->boots[0], true, cpu, sizeof(cpu))) {
				char cpath[4400];

				snprintf(cpath, sizeof(cpath), "%s/%s", where, cpu);
				if (!stat(cpath, &st))
					snprintf(path, sizeof(path), "%s", cpath);
			}
		}
		if (stat(path, &st)) {
			char old[256], opath[4400];
			int k;

			hb_cmp_calib_name1(a->boots[0], old, sizeof(old));
			snprintf(opath, sizeof(opath), "%s/%s", where, old);
			k = snprintf(note, notelen, "none: no %s (run: hugebench calibrate %s --boots "
				     "10 --suite %s)", path,
				     a->boots[0]->target ? a->boots[0]->target : "TARGET",
				     a->boots[0]->suite);
			if (!stat(opath, &st) && k > 0 && (size_t)k < notelen)
				snprintf(note + k, notelen - (size_t)k, "; %s is of the earlier format "
					 "(hugebench-calibration/1, no clock): recalibrate", opath);
			return 0;
		}
	} else {
		snprintf(path, sizeof(path), "%s", where);
	}
	c = hb_cmp_calib_load(path, err, sizeof(err));
	if (!c) {
		snprintf(note, notelen, "%s", err);
		return -1;
	}
	hb_cmp_kernel_family(a->boots[0]->kernel_release, fam, sizeof(fam));
	if ((strcmp(c->host_cpu, a->boots[0]->host_cpu) && !hb_cmp_clock_virtual(a->boots[0])) ||
	    strcmp(c->accelerator, a->boots[0]->accelerator) || strcmp(c->suite, a->boots[0]->suite) ||
	    strcmp(c->family, fam) || strcmp(c->clock, a->boots[0]->clock)) {
		snprintf(note, notelen, "none: %s is for %s / %s / %s clock / suite %s / kernel %s, "
			 "not this comparison's %s / %s / %s clock / %s / %s", path, c->host_cpu,
			 c->accelerator, c->clock, c->suite, c->family, a->boots[0]->host_cpu,
			 a->boots[0]->accelerator, a->boots[0]->clock, a->boots[0]->suite, fam);
		hb_cmp_calib_free(c);
		return 0;
	}
	if (hb_cmp_calib_env_match(c, a, b, note, notelen)) {
		hb_cmp_calib_free(c);
		return 0;
	}
	if (!strcmp(c->clock, "virtual") && c->center_rule < HB_CMP_CENTER_RULE) {
		/* its sds are of boot medians; the rule's virtual-clock center is the
		 * mean (issue 34: 664 vs 5 120 for one metric) */
		snprintf(note, notelen, "none: %s holds boot medians (center_rule %d), the rule uses "
			 "means on the virtual clock: recalibrate (hugebench calibrate --from GROUP)",
			 path, c->center_rule);
		hb_cmp_calib_free(c);
		return 0;
	}
	snprintf(note, notelen, "%s (%zu boots of %s, %s clock, %s; %zu metrics)", path, c->boots,
		 c->target, c->clock, c->created, c->n);
	hb_cmp_calib_warn(c, a, b, note, notelen);
	*out = c;
	return 0;
}
