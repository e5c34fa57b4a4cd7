/* registry.h - the one list of guest workloads (X-macro).
 * Adding a workload = one wl_<name>.c file exporting `hb_wl_<name>` + one
 * line here. The order is the order a suite without an explicit list runs. */
#define HB_WORKLOADS(X) \
	X(fault)        \
	X(access)       \
	X(truncate)     \
	X(unmap)        \
	X(mlock)        \
	X(mapped)       \
	X(pressure)     \
	X(recover)      \
	X(knobs)        \
	X(mthp)         \
	X(fragment)     \
	X(kvm_map)      \
	X(race)         \
	X(split_race)   \
	X(fallback)     \
	X(swapacct)     \
	X(uffd)         \
	X(hugetlb_memfd) \
	X(mthp_paths)   \
	X(selftest)     \
	X(fio)          \
	X(stress_ng)    \
	X(kselftest)
