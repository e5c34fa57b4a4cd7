/* run.h - the `hugebench run` command. */
#ifndef HB_RUN_H
#define HB_RUN_H

#include <stdbool.h>
#include <stddef.h>

int hb_cmd_run(int argc, char **argv);
/* hb_cmd_run for other commands (calibrate): force_group makes even one
 * boot a group folder; the run folder is copied to dir_out. Returns the exit
 * code of `hugebench run`. */
int hb_run_main(int argc, char **argv, bool force_group, char *dir_out, size_t dir_len);
/* `hugebench ab BASE NEW`: interleaved boots of two targets, then compare-report. */
int hb_cmd_ab(int argc, char **argv);
/* ab's boot order: the side (0 BASE, 1 NEW) booted k-th (k 0 or 1) in pair
 * `pair`: A B, then B A, and so on (ABBA counterbalancing). */
int hb_ab_side(int pair, int k);

#endif
