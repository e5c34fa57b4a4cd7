/* main.c - the hugebench CLI: an explicit table of subcommands. */
#define _GNU_SOURCE
#include "commands.h"
#include "params.h"
#include "util.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", hb_cmd_run, "boot a target, run a suite, write results/<target>/<ts>-<suite>/" },
	{ "ab", hb_cmd_ab, "boot BASE and NEW alternately, N boots each, then compare-report" },
	{ "compare-report", hb_cmd_compare, "compare result folders: BASE NEW [NEW2 ...]" },
	{ "nightly", hb_cmd_nightly, "the matrix of targets against their baselines: junit.xml, kcidb.json" },
	{ "baseline", hb_cmd_baseline, "promote a green run or group to a target's baseline; show it" },
	{ "calibrate", hb_cmd_calibrate, "measure boot-to-boot noise: TARGET --boots N, or --from GROUP" },
	{ "table", hb_cmd_table, "markdown table of runs side by side (checks, metrics, KVM)" },
	{ "doctor", hb_cmd_doctor, "what works here: accelerator, QEMU, nested virt, PMU, cache" },
	{ "bisect", hb_cmd_bisect, "find the patch of a recipe's series (or the commit) that regressed" },
	{ "kernels", hb_cmd_kernels, "list the known targets, the expectation tables, the known bugs" },
	{ "accept", hb_cmd_accept, "propose a run's failed table expectations for review" },
	{ "kernel", hb_cmd_kernel, "fetch or build a target's kernel without booting it" },
	{ "cache", hb_cmd_cache, "the machine's cache of kernels, ccache, images: path, show, clean" },
	{ "help", cmd_help, "this list; `help workloads`: every workload and its parameters" },
};

/* `hugebench help workloads`: the guest's parameter tables (hb-guest
 * --describe), the ones a suite is checked against before a boot. */
static int help_workloads(void)
{
	static char out[1 << 18];
	char guest[PATH_MAX], err[256];
	char *argv[] = { guest, "--describe", NULL };
	struct hb_describe d;

	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	if (hb_spawn_capture(argv, out, sizeof(out)) != 0 ||
	    hb_describe_load(out, &d, err, sizeof(err))) {
		hb_err("cannot read the workloads' parameters from %s --describe; run: make", guest);
		return HB_EXIT_INFRA;
	}
	hb_describe_print(stdout, &d);
	hb_describe_free(&d);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "workloads") == 0)
		return help_workloads();
	if (argc > 1) {
		hb_err("unknown help topic '%s'; run: hugebench help [workloads]", argv[1]);
		return HB_EXIT_USAGE;
	}
	printf("usage: hugebench COMMAND [options]\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-16s %s\n", commands[i].name, commands[i].help);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a closed pipe or socket is an error to handle where it happens */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		cmd_help(0, NULL);
		return HB_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	/* hidden: the step command of `git bisect run` (bisect.c parses it,
	 * bisect/git.c does it) */
	if (strcmp(argv[1], "bisect-step") == 0)
		return hb_cmd_bisect_step(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(0, NULL);
	hb_err("unknown command '%s'; run: hugebench help", argv[1]);
	return HB_EXIT_USAGE;
}
