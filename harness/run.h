/* run.h - the `hugebench run` command. */
#ifndef HB_RUN_H
#define HB_RUN_H

int hb_cmd_run(int argc, char **argv);

#endif
