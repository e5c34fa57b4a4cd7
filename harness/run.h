/* run.h - the typed entry other commands (calibrate, bisect, ab) boot a run
 * group through; the `run` and `ab` commands themselves are in commands.h. */
#ifndef HB_RUN_H
#define HB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "boot.h"

/* The options of `hugebench run` before any flag. */
void hb_run_opts_default(struct run_opts *o);
/* One more --NAME VALUE option a command takes besides run's (calibrate's
 * --output): its value goes to *value. A list ends with a NULL name. */
struct hb_run_extra {
	const char *name;
	const char **value;
};
/* run's flags in argv (argv[0] the command's name) into o, extra's too (at
 * most 8; NULL: none), then hb_run_opts_check; positional words are left
 * from optind. help (NULL: run's) is printed for --help and for an unknown
 * option. 0, -1 after --help, or an exit code after one line on stderr. */
int hb_run_parse(int argc, char **argv, struct run_opts *o, int (*help)(FILE *),
		 const struct hb_run_extra *extra);
/* What run checks and completes after its flags: the --accel, --clock,
 * --guest-ram and --backend words, --jobs and --results defaults. 0, or
 * HB_EXIT_USAGE after one line on stderr. */
int hb_run_opts_check(struct run_opts *o);
/* `hugebench run` with checked options: one boot, or a run group of
 * o->boots; force_group makes even one boot a group folder. The run folder
 * is copied to dir_out (NULL: not wanted) as soon as it exists. Returns the
 * exit code of `hugebench run`. */
int hb_run_group(const struct run_opts *o, bool force_group, char *dir_out, size_t dir_len);
/* ab's boot order: the side (0 BASE, 1 NEW) booted k-th (k 0 or 1) in pair
 * `pair`: A B, then B A, and so on (ABBA counterbalancing). */
int hb_ab_side(int pair, int k);
/* ab's exit code from compare-report's (crc) and the worst boot of each
 * side (0, HB_EXIT_FAIL): a failing BASE boot is 3, not 1 (issue 34). */
int hb_ab_exit(int crc, int base_rc, int new_rc);

#endif
