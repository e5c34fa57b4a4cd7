/* race_itest.h - integration tests of issue 37's workloads: race (threads
 * in several processes on a huge file and memfd, every byte against a
 * model), fallback (memcg charge failures) and swapacct (shmem accounting
 * across swap). */
#ifndef HB_RACE_ITEST_H
#define HB_RACE_ITEST_H

/* make test: configs/paths.suite's lines on debian-7.2 (the race without
 * truncate: stock 7.2 livelocks there) plus two race lines of one seed, in
 * one boot: everything passes, the exact counters, and the seeded lines did
 * the same operations (a replay replays). */
void test_paths_debian_7_2(void **state);
/* Long (make race-long): configs/race.suite (16 workers, 120 s; then zram)
 * on debian-7.2, debian-6.12 and debian-6.1, three boots each, every boot
 * passes. */
void test_race_full_strength_stock(void **state);

/* Long: the seed that hung stock debian-7.2 in ftruncate (2 of 4 runs),
 * up to 6 boots until it hangs again: caught as a failed race_workers with
 * the stuck thread's syscall (a failing run replays from its seed). */
void test_race_replay_hang_debian_7_2(void **state);

/* make test: mthp-paths on debian-6.12 (its exact outcomes; zram swap-in
 * through readahead at order 0) and debian-6.1 (a skip naming the kfeatures
 * row shmem_per_size): two boots, about 60 s. 7.2's run is in
 * test_paths_debian_7_2. */
void test_mthp_paths_debian_6_12_6_1(void **state);

/* make test: split-race (10 rounds, 3 readers) on debian-7.2 with
 * --tcg-threads multi passes every check with reads in flight during
 * splits; with one vCPU it fails subject_split_race_cpus. Two boots. */
void test_split_race_debian_7_2(void **state);

#endif
