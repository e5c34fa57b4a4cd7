/* bisect/search.c - the search of `hugebench bisect`, as a pure function:
 * given what is known per prefix length k (good, bad, skip, uncertain, how
 * often judged), which k to build and judge next, or the answer. No I/O, so
 * tests/unit/test_bisect.c covers it without a build or a boot.
 *
 * The rule is git bisect's: keep the last good k (lo) below the first bad k
 * (hi) and test near the middle of (lo, hi); a skipped k sends the search to
 * its nearest untested neighbour (mid, mid + 1, mid - 1, mid + 2, ...). k = 0
 * (the base, no patch of the series) is taken as good and k = n as bad until
 * the end: k = n is built only when every k below it tested good.
 */
#include "bisect.h"

#include <errno.h>
#include <string.h>

static const char *const names[] = {
	[HB_BV_UNTESTED] = "untested", [HB_BV_GOOD] = "good", [HB_BV_BAD] = "bad",
	[HB_BV_SKIP] = "skip",	       [HB_BV_UNCERTAIN] = "uncertain",
};

const char *hb_bisect_v_name(enum hb_bisect_v v)
{
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

int hb_bisect_v_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* An uncertain k that may not be judged again counts as a skip. */
static enum hb_bisect_v eff(const enum hb_bisect_v *v, int k)
{
	return v[k] == HB_BV_UNCERTAIN ? HB_BV_SKIP : v[k];
}

static void done(struct hb_bisect_next *o, enum hb_bisect_outcome oc, int first_bad, int lo, int hi)
{
	o->action = HB_BA_DONE;
	o->k = -1;
	o->outcome = oc;
	o->first_bad = first_bad;
	o->lo = lo;
	o->hi = hi;
}

int hb_bisect_next(const enum hb_bisect_v *v, const int *tries, int n, int max_tries,
		   struct hb_bisect_next *out)
{
	int lo = 0, hi = -1, mid;

	if (!v || !tries || !out || n < 1)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->first_bad = -1;
	for (int k = 0; k <= n; k++) {
		if (v[k] < HB_BV_UNTESTED || v[k] > HB_BV_UNCERTAIN)
			return -EINVAL;
		if (v[k] == HB_BV_UNCERTAIN && tries[k] < max_tries) {
			out->action = HB_BA_RETEST;
			out->k = k;
			out->lo = out->hi = -1;
			return 0;
		}
	}
	if (eff(v, 0) == HB_BV_BAD) {
		done(out, HB_BO_BASE_BAD, -1, -1, 0);
		return 0;
	}
	for (int k = 1; k <= n && hi < 0; k++)
		if (eff(v, k) == HB_BV_BAD)
			hi = k;
	if (hi < 0 && eff(v, n) == HB_BV_GOOD) {
		done(out, HB_BO_NONE, -1, n, -1);
		return 0;
	}
	for (int k = (hi < 0 ? n : hi) - 1; k > 0; k--)
		if (eff(v, k) == HB_BV_GOOD) {
			lo = k;
			break;
		}
	{
		int top = hi < 0 ? n : hi; /* n assumed bad while untested */

		mid = lo + (top - lo) / 2;
		for (int d = 0; d <= top - lo; d++) {
			int c[2] = { mid + d, mid - d };

			for (int j = 0; j < (d ? 2 : 1); j++)
				if (c[j] > lo && c[j] < top && eff(v, c[j]) == HB_BV_UNTESTED) {
					out->action = HB_BA_TEST;
					out->k = c[j];
					out->lo = lo;
					out->hi = top;
					return 0;
				}
		}
		if (hi < 0) {
			if (eff(v, n) == HB_BV_UNTESTED) {
				out->action = HB_BA_TEST;
				out->k = n;
				out->lo = lo;
				out->hi = n;
				return 0;
			}
			/* k = n skipped: the first bad, if any, is above lo */
			done(out, HB_BO_AMBIGUOUS, -1, lo, n);
			return 0;
		}
	}
	if (hi == lo + 1)
		done(out, HB_BO_FOUND, hi, lo, hi);
	else
		done(out, HB_BO_AMBIGUOUS, -1, lo, hi);
	return 0;
}

const char *hb_bisect_outcome_name(enum hb_bisect_outcome oc)
{
	static const char *const n[] = { [HB_BO_FOUND] = "found", [HB_BO_NONE] = "none",
					 [HB_BO_BASE_BAD] = "base-bad",
					 [HB_BO_AMBIGUOUS] = "ambiguous" };

	return (unsigned)oc < sizeof(n) / sizeof(n[0]) ? n[oc] : "?";
}
