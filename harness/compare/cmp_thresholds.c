/* cmp_thresholds.c - configs/thresholds.conf (minimum effects per clock and
 * a fallback boot sd per workload/metric pattern; for each setting the last
 * matching line wins) and the names of the rule's enums, for compare-report
 * (cmp_rule.c holds the rule itself).
 *
 * Two minimum effects: min_effect_pct for the wall clock (5 % by default,
 * LKP's convention for wall-clock noise) and min_effect_virtual_pct when
 * both sides ran on the virtual clock (0.5 %: it counts instructions, and
 * most metrics repeat within 0.5 % from boot to boot). A line that sets min_effect_pct and not min_effect_virtual_pct
 * sets both, so that a minimum effect written for some metrics is not
 * undone on the virtual clock by a general line above it. */
#define _DEFAULT_SOURCE
#include "compare.h"
#include "userfile.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- thresholds.conf ----------------------------------------------------------- */

void hb_cmp_thresholds_default(struct hb_cmp_thresholds *t)
{
	t->lines = NULL;
	t->n = 0;
	t->def = (struct hb_cmp_limits){
		.min_effect_pct = HB_CMP_MIN_EFFECT_WALL,
		.boot_sd_pct = NAN, /* no fallback calibration */
		.min_effect_virtual_pct = HB_CMP_MIN_EFFECT_VIRTUAL,
		.sd_floor_virtual_pct = NAN,
		.src_wall = "default:wall",
		.src_virtual = "default:virtual",
	};
}

void hb_cmp_thresholds_free(struct hb_cmp_thresholds *t)
{
	free(t->lines);
	t->lines = NULL;
	t->n = 0;
}

/* A valid fnmatch pattern: every '[' closed by a ']' (after an optional !
 * or ^ and a first ], which is literal), no '\\' at the end. glibc's
 * fnmatch takes "[" as a class that never matches (issue 38): refused. */
static bool glob_ok(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return false;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			q = strchr(q, ']');
			if (!q)
				return false;
			p = q;
		}
	}
	return true;
}

int hb_cmp_thresholds_load(const char *path, struct hb_cmp_thresholds *t, char *err,
			   size_t errlen)
{
	/* a folder, a FIFO, /dev/zero or a huge file is an error, not "no thresholds" */
	size_t len;
	char *text = hb_userfile_read(path, HB_USERFILE_TEXT_MAX, &len, err, errlen);
	char *next = text, *line;
	size_t cap = 0;
	int lineno = 0;

	hb_cmp_thresholds_default(t);
	if (!text)
		return -1;
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: a NUL byte in the file; thresholds are text", path);
		free(text);
		return -1;
	}
	while ((line = strsep(&next, "\n"))) { /* a line of any length is one line */
		struct hb_cmp_rule_line rl = { .lim = { NAN, NAN, NAN, NAN, NULL, NULL, false } };
		char *s = line, *tok, *save = NULL;

		lineno++;
		if ((tok = strchr(s, '#')))
			*tok = 0;
		tok = strtok_r(s, " \t\r\n", &save);
		if (!tok)
			continue;
		if (strlen(tok) >= sizeof(rl.pattern))
			goto bad_pattern;
		snprintf(rl.pattern, sizeof(rl.pattern), "%s", tok);
		if (!glob_ok(rl.pattern)) {
			char ex[4 * HB_EXCERPT_MAX + 4];

			hb_excerpt(rl.pattern, (size_t)-1, ex, sizeof(ex));
			snprintf(err, errlen, "%s:%d: pattern \"%s\" is not a valid glob (a [ without "
				 "its ], or a \\ at the end): it would never match", path, lineno, ex);
			goto fail;
		}
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(tok, '='), *end;
			double v, *dst;

			if (eq && !strncmp(tok, "min_effect_pct=", 15))
				dst = &rl.lim.min_effect_pct;
			else if (eq && !strncmp(tok, "min_effect_virtual_pct=", 23))
				dst = &rl.lim.min_effect_virtual_pct;
			else if (eq && !strncmp(tok, "boot_sd_pct=", 12))
				dst = &rl.lim.boot_sd_pct;
			else if (eq && !strncmp(tok, "sd_floor_virtual_pct=", 21))
				dst = &rl.lim.sd_floor_virtual_pct;
			else {
				char ex[4 * HB_EXCERPT_MAX + 4];

				hb_excerpt(tok, (size_t)-1, ex, sizeof(ex));
				snprintf(err, errlen, "%s:%d: unknown setting \"%s\" (known: "
					 "min_effect_pct=N min_effect_virtual_pct=N boot_sd_pct=N "
					 "sd_floor_virtual_pct=N)",
					 path, lineno, ex);
				goto fail;
			}
			v = strtod(eq + 1, &end);
			if (end == eq + 1 || *end || !(v >= 0 && v < 100)) { /* NAN too */
				char ex[4 * HB_EXCERPT_MAX + 4];

				hb_excerpt(eq + 1, (size_t)-1, ex, sizeof(ex));
				snprintf(err, errlen, "%s:%d: %.*s wants a number in [0, 100), not \"%s\"",
					 path, lineno, (int)(eq - tok), tok, ex);
				goto fail;
			}
			*dst = v;
		}
		if (isnan(rl.lim.min_effect_pct) && isnan(rl.lim.boot_sd_pct) &&
		    isnan(rl.lim.min_effect_virtual_pct) && isnan(rl.lim.sd_floor_virtual_pct)) {
			char ex[4 * HB_EXCERPT_MAX + 4];

			hb_excerpt(rl.pattern, (size_t)-1, ex, sizeof(ex));
			snprintf(err, errlen, "%s:%d: \"%s\" sets nothing (want: %s min_effect_pct=N)",
				 path, lineno, ex, ex);
			goto fail;
		}
		if (hb_cmp_append((void **)&t->lines, &t->n, &cap, sizeof(rl), &rl)) {
			snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
			goto fail;
		}
	}
	free(text);
	return 0;
bad_pattern:
	snprintf(err, errlen, "%s:%d: pattern too long", path, lineno);
fail:
	/* the excerpts above only from the user's own file (issue 38) */
	hb_err_unquote(path, "thresholds", err, errlen);
	free(text);
	hb_cmp_thresholds_free(t);
	return -1;
}

void hb_cmp_limits_for(const struct hb_cmp_thresholds *t, const char *workload,
		       const char *metric, struct hb_cmp_limits *lim)
{
	const char *w = workload ? workload : "", *m = metric ? metric : "";
	size_t len = strlen(w) + strlen(m) + 2;
	char small[256], *key = len <= sizeof(small) ? small : malloc(len);

	*lim = t->def;
	if (!key)
		return; /* out of memory: the defaults */
	snprintf(key, len, "%s.%s", w, m);
	for (size_t i = 0; i < t->n; i++) {
		const struct hb_cmp_limits *l = &t->lines[i].lim;

		if (fnmatch(t->lines[i].pattern, key, 0))
			continue;
		if (!isnan(l->min_effect_pct)) {
			lim->min_effect_pct = l->min_effect_pct;
			lim->src_wall = "thresholds:wall";
		}
		if (!isnan(l->min_effect_virtual_pct)) {
			lim->min_effect_virtual_pct = l->min_effect_virtual_pct;
			lim->src_virtual = "thresholds:virtual";
		} else if (!isnan(l->min_effect_pct)) {
			/* a minimum effect written for these metrics holds on both clocks */
			lim->min_effect_virtual_pct = l->min_effect_pct;
			lim->src_virtual = "thresholds:both";
		}
		if (!isnan(l->boot_sd_pct))
			lim->boot_sd_pct = l->boot_sd_pct;
		if (!isnan(l->sd_floor_virtual_pct))
			lim->sd_floor_virtual_pct = l->sd_floor_virtual_pct;
	}
	if (key != small)
		free(key);
}

double hb_cmp_limits_min_effect(const struct hb_cmp_limits *lim, const char **src)
{
	const char *s = lim->virtual_clock ? lim->src_virtual : lim->src_wall;

	if (src)
		*src = s ? s : "-";
	return lim->virtual_clock ? lim->min_effect_virtual_pct : lim->min_effect_pct;
}

double hb_cmp_min_effect(const struct hb_cmp_thresholds *t, const char *workload,
			 const char *metric, bool virtual_clock)
{
	struct hb_cmp_limits l;

	hb_cmp_limits_for(t, workload, metric, &l);
	l.virtual_clock = virtual_clock;
	return hb_cmp_limits_min_effect(&l, NULL);
}

/* ---- names ------------------------------------------------------------------- */

const char *hb_cmp_verdict_name(enum hb_cmp_verdict v)
{
	static const char *const names[] = { "same", "REGRESSION", "improvement", "info",
					     "untested", "unavailable", "missing", "advisory",
					     "small", "untestable" };

	return names[v];
}

const char *hb_cmp_mode_name(enum hb_cmp_mode m)
{
	static const char *const names[] = { "none", "boots", "calibrated", "advisory" };

	return names[m];
}

const char *hb_cmp_better_name(enum hb_cmp_better b)
{
	static const char *const names[] = { "lower", "higher", "info" };

	return names[b];
}

