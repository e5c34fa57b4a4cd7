/* protocol.c - the orders of statuses and verdicts (protocol.h), used by the
 * aggregator, the loader and compare-report alike. */
#include "protocol.h"

#include <stddef.h>
#include <string.h>

static int rank_in(const char *s, const char *const *order, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, order[i]))
			return i;
	return -1;
}

int hb_status_rank(const char *status)
{
	static const char *const order[] = { "skip", "pass", "fail", "error", "incomplete" };

	return rank_in(status, order, (int)(sizeof(order) / sizeof(order[0])));
}

int hb_verdict_rank(const char *verdict)
{
	static const char *const order[] = { "pass", "kernel-warning", "fail", "error",
					     "incomplete", "timeout", "panic" };

	return rank_in(verdict, order, (int)(sizeof(order) / sizeof(order[0])));
}
