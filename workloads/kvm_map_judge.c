/* kvm_map_judge.c - the judging part of the kvm-map workload (kvm_map.h):
 * its subject check and which backings this kernel has, from the kernel
 * feature table (issue 25). Pure functions of what was observed, linked on
 * their own by tests/unit/workloads/test_kvm_map_outcomes.c. */
#define _GNU_SOURCE
#include "kvm_map.h"

#include <stdio.h>
#include <string.h>

bool kvm_map_subject_judge(struct hb_ctx *ctx, const char *tag, long long p2m, long long p4k,
			   const char *knob, char *absent, size_t len)
{
	char name[96], exp[128];

	snprintf(name, sizeof(name), "subject_%s_pages_2m", tag);
	snprintf(exp, sizeof(exp), ">= +1 2 MiB stage-2 mapping of huge shmem guest RAM (%s)", tag);
	if (hb_check(ctx, name, p2m >= 1, exp, "pages_2m %+lld, pages_4k %+lld (%s)", p2m, p4k,
		     knob))
		return true;
	snprintf(absent, len, "no 2 MiB stage-2 mapping of huge shmem guest RAM (%s)", knob);
	return false;
}

int kvm_map_hugetlb_judge(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, bool have_2m)
{
	char why[384];

	if (!hb_kf_decide(HB_KF_HUGETLBFS, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "hugetlb backing skipped: %s", why);
		return 1;
	}
	/* x86-64 hugetlbfs always has the 2 MiB size */
	return hb_check(ctx, "hugetlb_2m_present", have_2m,
			"/sys/kernel/mm/hugepages/hugepages-2048kB exists (kfeatures row "
			"hugetlbfs)", "%s", have_2m ? "present" : "absent")
		       ? 0
		       : -1;
}

bool kvm_map_call_judge(struct hb_ctx *ctx, const char *tag, const char *what, const char *call,
			int err)
{
	char name[96], exp[160], e[96];

	snprintf(name, sizeof(name), "%s_%s", tag, what);
	snprintf(exp, sizeof(exp), "%s succeeds", call);
	hb_kf_errno_text(err, e, sizeof(e));
	return hb_check(ctx, name, err == 0, exp, "%s: %s", call, err ? e : "0");
}
