/* table.h - `hugebench table`: markdown tables of runs side by side. */
#ifndef HB_TABLE_H
#define HB_TABLE_H

int hb_cmd_table(int argc, char **argv);

#endif
