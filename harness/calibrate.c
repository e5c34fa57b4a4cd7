/* calibrate.c - `hugebench calibrate`: measure every metric's boot-to-boot
 * noise on this host and store it for compare-report.
 *
 *   hugebench calibrate TARGET --boots N [--suite S] [run options]
 *     boots TARGET N times (an A/A run group, as `hugebench run --boots N`),
 *     then measures the group;
 *   hugebench calibrate --from GROUP [--results DIR] [--output FILE]
 *     measures a group that exists.
 * The file goes to <results>/calibration/<cpu-hash>-<accel>-wall-<suite>-
 * <family>.json, on the virtual clock anycpu-<accel>-virtual-<suite>-
 * <family>.json (cmp_calib.c), or to --output. It prints every metric's
 * boot sd and the smallest change a lone true effect shows at 1, 3, 5 and
 * 10 boots per side: 80 % power at BH's alpha / m, m the number of metrics
 * of the calibration (a comparison of this suite tests about as many), and
 * never below the metric's minimum effect on the calibration's clock
 * (configs/thresholds.conf: min_effect_virtual_pct for a virtual-clock
 * calibration, min_effect_pct for a wall-clock one). Exit 0 written, 2
 * usage or input error, 3 when the boots could not run.
 */
#define _GNU_SOURCE
#include "commands.h"
#include "compare.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char calib_usage[] =
	"usage: hugebench calibrate TARGET --boots N [--suite S] [run options]\n"
	"       hugebench calibrate --from GROUP [--results DIR] [--output FILE]\n"
	"Measures the boot-to-boot sd of every metric's log center (N >= 3 boots of one\n"
	"kernel, made alike: one clock, vCPU count, memory size, QEMU and host kernel;\n"
	"10 recommended) and writes results/calibration/<cpu>-<accel>-<clock>-<suite>-\n"
	"<kernel family>.json (<cpu> is anycpu on the virtual clock, which the host CPU\n"
	"does not change), which compare-report uses to judge metrics with fewer\n"
	"than 3 boots per side, and as a floor under the boot sd measured with more.\n"
	"For comparisons with fewer than 3 boots per side calibrate 30 boots: with 10,\n"
	"a mode seen in 1 boot of 10 is missed a third of the time, and 2 NEW boots in\n"
	"it look like a change (docs/compare.md, Calibration).\n";

static int cmp_sd(const void *x, const void *y)
{
	const struct hb_cmp_calib_metric *a = x, *b = y;

	return (a->sd_robust > b->sd_robust) - (a->sd_robust < b->sd_robust);
}

/* Measure the group at `path` and write the file; an exit code. */
static int calibrate_group(const char *arg, const char *results, const char *output)
{
	char err[1024], name[256], dir[PATH_MAX], path[PATH_MAX + 300];
	struct hb_cmp_group *g =
		hb_cmp_group_open(arg, results, NULL, HB_CMP_USE_RULE, err, sizeof(err));
	struct hb_cmp_calib *c;
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;
	int rc = HB_EXIT_USAGE;
	char thf[PATH_MAX], mesrc[PATH_MAX + 64];
	bool virt;

	if (!g) {
		hb_err("calibrate: %s", err);
		return HB_EXIT_USAGE;
	}
	c = hb_cmp_calib_measure(g, err, sizeof(err));
	if (!c) {
		hb_err("calibrate: %s", err);
		goto out;
	}
	snprintf(name, sizeof(name), "%s", c->path);
	if (output) {
		/* never over the group it measured (issue 38: --output G/group.json) */
		size_t k = 0;
		const char **in = calloc(g->n + 1, sizeof(*in));

		if (!in)
			goto out;
		in[k++] = g->path;
		for (size_t i = 0; i < g->n; i++)
			in[k++] = g->boots[i]->path;
		if (hb_output_check("--output", output, in, k, err, sizeof(err))) {
			free(in);
			hb_err("calibrate: %s", err);
			goto out;
		}
		free(in);
		snprintf(path, sizeof(path), "%s", output);
	} else {
		snprintf(dir, sizeof(dir), "%s/calibration", results);
		if (hb_mkdir_p(dir)) {
			hb_errno("calibrate: cannot create %s", dir);
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	}
	if (hb_cmp_calib_save(c, path, err, sizeof(err))) {
		hb_err("calibrate: %s", err);
		goto out;
	}
	printf("calibration: %zu boots of %s (kernel family %s, suite %s, %s, %s clock) -> %s\n",
	       c->boots, c->target, c->family, c->suite, c->accelerator, c->clock, path);
	printf("made on %s (%ld CPUs online), load averages %.2f %.2f %.2f (1, 5, 15 min) when "
	       "written; boots %s .. %s (%s); center rule %d (virtual clock: means)\n",
	       c->host ? c->host : "?", c->host_cpus, c->load[0], c->load[1], c->load[2],
	       c->boots_from ? c->boots_from : "?", c->boots_to ? c->boots_to : "?",
	       c->boots_span_exact ? "their own start and end"
				   : "run start only: the boots recorded no start or end",
	       c->center_rule);
	if (c->boots_with_load)
		printf("the boots' host load (1-minute average at each boot's start and end): "
		       "%.2f to %.2f, %zu of %zu boots recorded it\n", c->boots_load1[0],
		       c->boots_load1[1], c->boots_with_load, c->boots);
	else
		printf("the boots' host load: not recorded (boots made before result.json held "
		       "host_loadavg)\n");
	/* the noisiest last: what a verdict at 5 boots per side can judge */
	qsort(c->m, c->n, sizeof(*c->m), cmp_sd);
	hb_cmp_opts_default(&o);
	snprintf(thf, sizeof(thf), "%s/configs/thresholds.conf", hb_root());
	hb_cmp_thresholds_default(&th);
	/* the minimum effects of the calibration's clock: the comparisons it
	 * serves are on that clock */
	virt = !strcmp(c->clock, "virtual");
	if (access(thf, R_OK) || hb_cmp_thresholds_load(thf, &th, err, sizeof(err))) {
		if (!access(thf, R_OK))
			hb_err("calibrate: %s (minimum effects: the built-in ones)", err);
		hb_cmp_thresholds_default(&th);
		snprintf(mesrc, sizeof(mesrc), "built-in %g%% on the %s clock",
			 virt ? HB_CMP_MIN_EFFECT_VIRTUAL : HB_CMP_MIN_EFFECT_WALL, c->clock);
	} else {
		snprintf(mesrc, sizeof(mesrc), "%s of %s: the calibration's clock is %s",
			 virt ? "min_effect_virtual_pct" : "min_effect_pct", thf, c->clock);
	}
	printf("Smallest change a lone true effect shows with %.0f%% power: BH over the m = %zu "
	       "metrics of this calibration needs p <= %g/%zu; never below the metric's minimum "
	       "effect (%s). A boot sd under %g%% is used as %g%%.\n", o.power * 100, c->n, o.alpha,
	       c->n ? c->n : 1, mesrc, HB_CMP_SD_FLOOR * 100, HB_CMP_SD_FLOOR * 100);
	printf("%-52s %8s %6s  %s\n", "metric", "boot sd", "min", "detectable with 1 / 3 / 5 / 10 "
	       "boots per side");
	for (size_t i = 0; i < c->n; i++) {
		static const size_t nb[] = { 1, 3, 5, 10 };
		char clean[256], wl[256], *dot, *hash;
		/* what the rule uses: the robust sd (one outlier boot left out) */
		double me, sd = fmax(c->m[i].sd_robust, HB_CMP_SD_FLOOR);

		hb_cmp_clean(clean, sizeof(clean), c->m[i].key);
		/* "<workload>[#k].<metric>": thresholds match the workload's name */
		snprintf(wl, sizeof(wl), "%s", c->m[i].key);
		dot = strchr(wl, '.');
		if (dot)
			*dot = 0;
		hash = strchr(wl, '#');
		if (hash)
			*hash = 0;
		me = hb_cmp_min_effect(&th, wl, dot ? dot + 1 : "", virt);
		printf("%-52s %7.2f%% %5g%% ", clean, c->m[i].sd_robust * 100, me);
		for (int k = 0; k < 4; k++) {
			/* t quantiles: the calibration's df with one boot a side, the
			 * boots' own with >= 3 (as the rule) */
			double df = nb[k] >= HB_CMP_MIN_BOOTS ? (double)(2 * nb[k] - 2)
							      : (double)c->m[i].used - 1;

			printf(" %6.1f%%", fmax(me, hb_cmp_detectable_pct(sd, df, nb[k], nb[k], c->n, &o)));
		}
		if (c->m[i].dropped < c->m[i].n)
			printf("   (boot %zu left out as the farthest: plain sd %.2f%%)",
			       c->m[i].dropped + 1, c->m[i].sd_log * 100);
		putchar('\n');
	}
	hb_cmp_thresholds_free(&th);
	rc = HB_EXIT_OK;
out:
	hb_cmp_calib_free(c);
	hb_cmp_group_free(g);
	return rc;
}

/* The value of --name (as "--name V" or "--name=V") anywhere in argv. */
static const char *opt_value(int argc, char **argv, const char *name)
{
	size_t l = strlen(name);

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], name, l) && argv[i][l] == '=')
			return argv[i] + l + 1;
		if (!strcmp(argv[i], name) && i + 1 < argc)
			return argv[i + 1];
	}
	return NULL;
}

int hb_cmd_calibrate(int argc, char **argv)
{
	const char *from = opt_value(argc, argv, "--from"), *res = opt_value(argc, argv, "--results");
	const char *out = opt_value(argc, argv, "--output"), *boots = opt_value(argc, argv, "--boots");
	char dflt[PATH_MAX], dir[PATH_MAX] = "";
	int rc;
	long n;
	char *end;

	hb_stats_init();
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(calib_usage, stdout);
			return HB_EXIT_OK;
		}
	if (!res) {
		snprintf(dflt, sizeof(dflt), "%s/results", hb_root());
		res = dflt;
	}
	if (from) {
		for (int i = 1; i < argc; i++) {
			bool known = !strncmp(argv[i], "--from", 6) || !strncmp(argv[i], "--results", 9) ||
				     !strncmp(argv[i], "--output", 8);

			if (!known && (i == 1 || (strcmp(argv[i - 1], "--from") &&
						  strcmp(argv[i - 1], "--results") &&
						  strcmp(argv[i - 1], "--output")))) {
				hb_err("calibrate --from: unexpected argument '%s'\n%s", argv[i],
				       calib_usage);
				return HB_EXIT_USAGE;
			}
		}
		return calibrate_group(from, res, out);
	}
	if (argc < 2 || argv[1][0] == '-') {
		hb_err("calibrate: TARGET first, or --from GROUP\n%s", calib_usage);
		return HB_EXIT_USAGE;
	}
	errno = 0;
	n = boots ? strtol(boots, &end, 10) : 0;
	if (!boots || errno || *end || end == boots || n < HB_CMP_MIN_BOOTS || n > 200) {
		hb_err("calibrate: --boots wants a number of boots from %d to 200 (10 recommended)%s%s",
		       HB_CMP_MIN_BOOTS, boots ? ", not " : "", boots ? boots : "");
		return HB_EXIT_USAGE;
	}
	{
		/* the boots: what `hugebench run --target TARGET` would do with
		 * the rest of the words, always as a group */
		const char *target = argv[1], *output = NULL;
		const struct hb_run_extra extra[] = { { "output", &output }, { NULL, NULL } };
		struct run_opts o;

		rc = hb_run_parse(argc, argv, &o, NULL, extra);
		if (rc)
			return rc < 0 ? HB_EXIT_OK : rc;
		for (int i = optind; i < argc; i++)
			if (argv[i] != target) {
				hb_err("unexpected argument '%s'; see hugebench run --help", argv[i]);
				return HB_EXIT_USAGE;
			}
		if (!o.target)
			o.target = target;
		rc = hb_run_group(&o, true, dir, sizeof(dir));
		if (!dir[0])
			return rc ? rc : HB_EXIT_INFRA;
		if (rc)
			printf("calibrate: the run group ended with exit %d; measuring the boots that ran "
			       "to the end\n", rc);
		rc = calibrate_group(dir, o.results, output);
	}
	return rc == HB_EXIT_USAGE ? HB_EXIT_INFRA : rc;
}
