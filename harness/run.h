/* run.h - the `hugebench run` command. */
#ifndef HB_RUN_H
#define HB_RUN_H

int hb_cmd_run(int argc, char **argv);
/* `hugebench ab BASE NEW`: interleaved boots of two targets, then compare-report. */
int hb_cmd_ab(int argc, char **argv);

#endif
