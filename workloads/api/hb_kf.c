/* hb_kf.c - the workload API's side of the kernel feature table
 * (lib/kfeatures.h, hb.h "kernel features"): whether the running kernel has
 * a feature, and the check on an errno from one it has. */
#define _GNU_SOURCE
#include "hb.h"

#include <stdio.h>

bool hb_kf_has(enum hb_kf f, char *why, size_t len)
{
	return hb_kf_decide(f, hb_kver(), hb_kf_config_now(f), why, len);
}

bool hb_check_call_on(struct hb_ctx *ctx, const char *name, enum hb_kf f, int kver,
		      enum hb_kf_cfg cfg, const char *call, int err)
{
	char text[448], exp[160];
	enum hb_kf_verdict v = hb_kf_judge(f, kver, cfg, call, err, text, sizeof(text));

	snprintf(exp, sizeof(exp), "%s succeeds", call);
	if (v == HB_KF_UNSUPPORTED)
		return hb_check(ctx, name, false, exp, "called although the table says the kernel "
				"lacks it: %s", text);
	return hb_check(ctx, name, v == HB_KF_OK, exp, "%s", text);
}

bool hb_check_call(struct hb_ctx *ctx, const char *name, enum hb_kf f, const char *call, int err)
{
	return hb_check_call_on(ctx, name, f, hb_kver(), hb_kf_config_now(f), call, err);
}
