/* commands.h - every `hugebench` subcommand, one function each, named
 * hb_cmd_<name>; main.c's table dispatches to them. Commands parse their
 * options, print, and choose the exit code (docs/exit-codes.md); the
 * libraries under harness/ return 0 or a negative errno and fill an error
 * buffer (util.h: hb_exit_code). Commands call each other through typed
 * functions (run.h: hb_run_group; compare.h: hb_compare), never by
 * rebuilding argv. argv[0] is the command's name.
 *
 * One part of the library still answers in exit codes, named here so it
 * is not copied: compare/ (HB_CMP_OK..INCOMPARABLE are compare-report's
 * verdict and exit code, and `ab` and nightly pass it through). bisect/ and
 * nightly/ follow the convention: what a search or a night found is data
 * (bisect.h: struct hb_bisect_answer; nightly.h: hb_night_state), and
 * hb_cmd_bisect, hb_cmd_bisect_step and hb_cmd_nightly turn it into the
 * exit code. */
#ifndef HB_COMMANDS_H
#define HB_COMMANDS_H

int hb_cmd_run(int argc, char **argv);		/* run.c */
int hb_cmd_ab(int argc, char **argv);		/* run.c */
int hb_cmd_compare(int argc, char **argv);	/* compare.c: compare-report */
int hb_cmd_nightly(int argc, char **argv);	/* nightly.c */
int hb_cmd_baseline(int argc, char **argv);	/* baseline.c */
int hb_cmd_calibrate(int argc, char **argv);	/* calibrate.c */
int hb_cmd_table(int argc, char **argv);	/* table.c */
int hb_cmd_doctor(int argc, char **argv);	/* doctor.c */
int hb_cmd_bisect(int argc, char **argv);	/* bisect.c */
/* Hidden: the step `git bisect run` calls; exit 0 good, 1 bad, 125 skip,
 * HB_BISECT_STEP_ABORT (bisect.h) when the step could not run at all. */
int hb_cmd_bisect_step(int argc, char **argv);	/* bisect.c */
int hb_cmd_kernels(int argc, char **argv);	/* kernels.c */
int hb_cmd_accept(int argc, char **argv);	/* accept.c */
int hb_cmd_kernel(int argc, char **argv);	/* kernels.c */
int hb_cmd_cache(int argc, char **argv);	/* cache.c */

#endif
