/* kernels.c - `hugebench kernels` (the known targets) and `hugebench kernel
 * --target T` (fetch or build a target's kernel without booting it). */
#define _GNU_SOURCE
#include "commands.h"
#include "expect_tables.h"
#include "kernel.h"
#include "target.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int hb_cmd_kernels(int argc, char **argv)
{
	char kdir[PATH_MAX], known[2048];

	(void)argc;
	(void)argv;
	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	hb_target_known(kdir, known, sizeof(known));
	printf("%s\n", known);
	/* issue 36: where each table's expectations come from */
	printf("\nexpectation tables (a newer kernel is judged by the newest, a kernel between "
	       "two that differ is unverified):\n");
	for (size_t i = 0; i < hb_n_expect_tables; i++) {
		const struct hb_expect_table *t = &hb_expect_tables[i];

		printf("  %s %d.%d\n    source: %s\n    verified on: %s\n", t->table, t->kver / 1000,
		       t->kver % 1000, t->source, t->verified_on);
	}
	printf("\nknown bugs (shown \"known bug\" while present, \"fixed\" when gone):\n");
	for (size_t i = 0; i < hb_n_known_bugs; i++)
		printf("  %s: %s\n    where: %s\n    ref: %s\n", hb_known_bugs[i]->id,
		       hb_known_bugs[i]->title, hb_known_bugs[i]->applies, hb_known_bugs[i]->ref);
	return 0;
}

/* `hugebench kernel --target RECIPE`: fetch or build without booting. */
int hb_cmd_kernel(int argc, char **argv)
{
	char kdir[PATH_MAX], err[1024];
	struct hb_target t;
	struct hb_kernel k;
	int rc;

	if (argc != 3 || strcmp(argv[1], "--target") != 0) {
		hb_err("usage: hugebench kernel --target RECIPE");
		return HB_EXIT_USAGE;
	}
	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	rc = hb_target_parse(argv[2], kdir, &t, err, sizeof(err));
	if (!rc)
		rc = hb_kernel_resolve(&t, NULL, &k, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		return hb_exit_code(rc);
	}
	printf("%s %s %s\n", k.release, k.image, k.moddir[0] ? k.moddir : "-");
	return 0;
}
