/* wl_fio.c - fio (issue 12) on a tmpfs of its own, once per huge= mode:
 * every job file of configs/fio named by jobs= (packed into the guest at
 * /opt/hb/fio by guest-images/mkextlayer.sh), run as
 *   fio --output-format=json+ --output=<json> <job file>
 * with the mount, size and runtime in HB_FIO_DIR/HB_FIO_SIZE/HB_FIO_RUNTIME.
 * Metrics per job and mode: bandwidth, IOPS, clat p50/p99/p99.9. Checks:
 * fio's exit status, its per-job error (a crc32c verify failure is EILSEQ),
 * that the verify pass read everything back, and on huge=always and
 * within_size that the whole file was in huge pages and, for the mmap
 * engine, that every 2 MiB extent of it was PMD-mapped in fio's own mapping
 * (subject-present, issue 15: fio's own output cannot tell) -- on outcomes,
 * sampled per mapping while fio ran (issues 22, 25; see fio_subject()). A job file that says "; hb-direct=1" uses O_DIRECT, which
 * tmpfs takes from 6.6 (kfeatures row tmpfs_direct_io): on a kernel the
 * table says lacks it the job is recorded as unavailable, never run; on one
 * that has it, fio's errors are failed checks like any other. */
#define _GNU_SOURCE
#include "ext_parse.h"
#include "ext_run.h"
#include "hb.h"
#include "wl_external.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIO_JOBS "seq-write-psync|rand-write-mmap|seq-read-mmap|rand-read-psync|rand-read-direct"

static void metric_if(struct hb_ctx *ctx, const char *pre, const char *what, const char *unit,
		      enum hb_better b, double v)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.%s", pre, what);
	if (isfinite(v) && v > 0)
		hb_metric1(ctx, name, unit, b, v);
	else
		hb_metric_unavailable(ctx, name, unit, b, "fio reported no value");
}

static bool job_is_direct(const char *path)
{
	char *t = hb_ext_slurp(path, 8192, NULL);
	bool d = t && strstr(t, "; hb-direct=1");

	free(t);
	return d;
}

/* One job on one mount; what it checked goes to ctx. */
static void fio_job(struct hb_ctx *ctx, const char *job, const char *mode, const char *dir,
		    long size_mb, long runtime_s)
{
	char path[256], json[256], log[256], pre[96], env_dir[300], env_size[64], env_rt[64], err[256];
	char *envs[] = { env_dir, env_size, env_rt, NULL };
	char *argv[] = { HB_EXT_ROOT "/bin/fio", "--output-format=json+", NULL, path, NULL };
	char out_opt[300], why[384] = "";
	struct hb_fio_result r;
	struct hb_snap a, b;
	bool timed_out, is_write;
	struct hb_ext_peak peak;
	char file[320];
	struct hb_ext_watch watch = { .sel = { .kind = HB_SMAPS_PATH, .path = file } };
	char *text;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/fio/%s.fio", HB_EXT_ROOT, job);
	snprintf(pre, sizeof(pre), "%s.%s", job, mode);
	if (access(path, R_OK)) {
		hb_error(ctx, "job file %s missing from the tools layer", path);
		return;
	}
	if (job_is_direct(path) && !hb_kf_has(HB_KF_TMPFS_DIRECT_IO, why, sizeof(why))) {
		char name[128];

		snprintf(name, sizeof(name), "%s.bw", pre);
		hb_note(ctx, "%s: not run: %s", pre, why);
		hb_metric_unavailable(ctx, name, "MiB/s", HB_HIGHER, why);
		return;
	}
	snprintf(json, sizeof(json), "/run/hb-ext/%s.json", pre);
	snprintf(log, sizeof(log), "/run/hb-ext/%s.log", pre);
	snprintf(out_opt, sizeof(out_opt), "--output=%s", json);
	argv[2] = out_opt;
	snprintf(env_dir, sizeof(env_dir), "HB_FIO_DIR=%s", dir);
	snprintf(env_size, sizeof(env_size), "HB_FIO_SIZE=%ldm", size_mb);
	snprintf(env_rt, sizeof(env_rt), "HB_FIO_RUNTIME=%ld", runtime_s);
	/* every job file names its file <job>.dat in HB_FIO_DIR */
	snprintf(file, sizeof(file), "%s/%s.dat", dir, job);
	hb_snap(ctx, &a);
	rc = hb_ext_run(argv, envs, dir, log, (int)(runtime_s * 4 + 120 + size_mb), -1, &timed_out,
			&peak, &watch);
	hb_snap(ctx, &b);
	if (rc == -2) {
		hb_error(ctx, "cannot run %s", argv[0]);
		return;
	}
	text = hb_ext_slurp(log, 65536, NULL);
	if (text && *text)
		hb_ext_emit_output(ctx, "fio-log", pre, text);
	free(text);
	{
		char cn[128];

		snprintf(cn, sizeof(cn), "%s.exit", pre);
		hb_check(ctx, cn, rc == 0, "fio exits 0", "%s", timed_out ? "killed at the time limit"
								  : rc < 0 ? "killed by a signal"
									   : rc == 0 ? "0" : "non-zero");
	}
	text = hb_ext_slurp(json, 4 << 20, &len);
	if (!text || hb_fio_parse(text, len, &r, err, sizeof(err))) {
		char cn[128];

		snprintf(cn, sizeof(cn), "%s.json", pre);
		hb_check(ctx, cn, false, "fio's json+ output parses", "%s",
			 text ? err : "no output file");
		free(text);
		return;
	}
	hb_ext_emit_output(ctx, "fio", pre, text);
	free(text);
	for (int i = 0; i < r.n_jobs; i++) {
		const struct hb_fio_job *j = &r.jobs[i];
		const struct hb_fio_dir *d;
		char cn[128];

		is_write = j->write.io_bytes > 0;
		d = is_write ? &j->write : &j->read;
		snprintf(cn, sizeof(cn), "%s.error", pre);
		hb_check(ctx, cn, j->error == 0, "0 (no error, verify passed)", "%d%s", j->error,
			 j->error == 84 ? " (EILSEQ: crc32c verify failed)" : "");
		if (is_write && strstr(job, "write")) {
			snprintf(cn, sizeof(cn), "%s.verified_bytes", pre);
			hb_check_ge(ctx, cn, j->write.io_bytes, j->read.io_bytes);
		}
		/* fio cannot tell whether its file was huge or how it was mapped */
		if (!fio_subject(ctx, pre, mode, job, size_mb * 1024, &peak,
				 hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"), &watch, why,
				 sizeof(why)))
			hb_note(ctx, "%s: %s", pre, why);
		metric_if(ctx, pre, "bw", "MiB/s", HB_HIGHER, d->bw_kib_s / 1024.0);
		metric_if(ctx, pre, "iops", "IOPS", HB_HIGHER, d->iops);
		metric_if(ctx, pre, "clat_p50", "us", HB_LOWER, d->clat_p50_ns / 1000.0);
		metric_if(ctx, pre, "clat_p99", "us", HB_LOWER, d->clat_p99_ns / 1000.0);
		metric_if(ctx, pre, "clat_p99.9", "us", HB_LOWER, d->clat_p999_ns / 1000.0);
	}
	unlink(json);
}

bool fio_huge_mode(const char *mode)
{
	/* fio sizes each file (ftruncate) before it writes it, so within_size
	 * asks for huge pages over the whole file as always does (measured:
	 * every job's file PMD-mappable on both) */
	return !strcmp(mode, "always") || !strcmp(mode, "within_size");
}

bool fio_subject(struct hb_ctx *ctx, const char *pre, const char *mode, const char *job,
		 long long file_kb, const struct hb_ext_peak *peak, long long after_huge_kb,
		 const struct hb_ext_watch *w, char *why, size_t len)
{
	long long huge = peak->huge_kb > after_huge_kb ? peak->huge_kb : after_huge_kb;
	/* the file's whole 2 MiB extents: what hb_check_pmd_subject asks of a
	 * native workload's file */
	long long ext_kb = file_kb / 2048 * 2048;
	bool ok = true;
	char cn[128], exp[192];

	if (!fio_huge_mode(mode))
		return true;
	why[0] = 0;
	/* an mmap job: one of fio's own mappings of the file with every
	 * extent PMD-mapped, at one sample while fio ran (fio may map the
	 * file more than once: the write pass, then the verify pass) */
	if (strstr(job, "mmap")) {
		snprintf(cn, sizeof(cn), "%s.subject_pmd_mapped", pre);
		snprintf(exp, sizeof(exp), "every 2 MiB extent of the %lld kB file PMD-mapped in one "
			 "of fio's mappings of it at one sample: ShmemPmdMapped >= %lld kB", file_kb,
			 ext_kb);
		if (!hb_check(ctx, cn, w->seen > 0 && w->full_kb >= ext_kb && ext_kb > 0, exp,
			      "largest wholly PMD-mapped mapping %lld kB; best sample %lld of %lld kB "
			      "PMD-mappable in %d mapping(s) of %lld kB; seen in %d of %d samples; "
			      "system-wide ShmemPmdMapped peak %+lld kB", w->full_kb, w->best.pmd_kb,
			      w->best.ext_kb, w->best.n_vma, w->best.size_kb, w->seen, w->samples,
			      peak->pmd_kb)) {
			ok = false;
			snprintf(why, len, "%s: %s", cn, w->seen ? "the file was not PMD-mapped "
				 "whole while fio ran" : "fio's mapping of the file was never seen");
		}
	}
	/* every job's file in huge pages: present, not allocated, and all of
	 * it (the mount is fresh: nothing else of it is huge) */
	snprintf(cn, sizeof(cn), "%s.subject_huge", pre);
	snprintf(exp, sizeof(exp), "the %lld kB file in huge pages: ShmemHugePages >= +%lld kB "
		 "while fio ran or after", file_kb, ext_kb);
	if (!hb_check(ctx, cn, huge >= ext_kb && ext_kb > 0, exp, "peak %+lld kB, after %+lld kB",
		      peak->huge_kb, after_huge_kb)) {
		ok = false;
		snprintf(why, len, "%s: the file was not in huge pages while fio ran or after", cn);
	}
	return ok;
}

/* Calls fn for each comma-separated word of list. */
static void each_word(const char *list, void (*fn)(const char *w, void *arg), void *arg)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		fn(w, arg);
}

struct fio_run {
	struct hb_ctx *ctx;
	const char *mode, *dir, *jobs;
	long size_mb, runtime_s;
};

/* Each job on a fresh mount: the files of earlier jobs would fill it. */
static void one_job(const char *job, void *arg)
{
	struct fio_run *fr = arg;

	if (hb_failed(fr->ctx))
		return;
	if (hb_mount_huge_tmpfs(fr->ctx, fr->dir, fr->mode, fr->size_mb * 2 + 16))
		return;
	fio_job(fr->ctx, job, fr->mode, fr->dir, fr->size_mb, fr->runtime_s);
	hb_umount(fr->dir);
}

static void one_mode(const char *mode, void *arg)
{
	struct fio_run *fr = arg;
	char dir[64];

	snprintf(dir, sizeof(dir), "/mnt/hb-fio-%s", mode);
	fr->mode = mode;
	fr->dir = dir;
	each_word(fr->jobs, one_job, fr);
}

static void fio_run(struct hb_ctx *ctx)
{
	uint64_t t0 = hb_now_ns();
	struct fio_run fr = { .ctx = ctx };
	char ver[128];

	if (hb_ext_need(ctx, "fio", ver, sizeof(ver)))
		return;
	if (hb_mount_tmpfs(ctx, "/run/hb-ext", "huge=never,size=64m"))
		return;
	fr.jobs = hb_param_str(ctx, "jobs");
	fr.size_mb = hb_param_long(ctx, "size_mb");
	fr.runtime_s = hb_param_long(ctx, "runtime_s");
	each_word(hb_param_str(ctx, "huge"), one_mode, &fr);
	hb_umount("/run/hb-ext");
	/* what the tool costs a suite (README: time per tool) */
	hb_metric1(ctx, "elapsed_s", "s", HB_INFO, (double)(hb_now_ns() - t0) / 1e9);
}

static const struct hb_param fio_params[] = {
	{ .name = "jobs", .type = HB_PARAM_LIST,
	  .def = "seq-write-psync,rand-write-mmap,seq-read-mmap,rand-read-psync,rand-read-direct",
	  .choices = FIO_JOBS,
	  .help = "job files of configs/fio to run (rand-read-direct only on >= 6.6)" },
	{ .name = "huge", .type = HB_PARAM_LIST, .def = "always,never",
	  .choices = "always|never|within_size|advise", .help = "tmpfs huge= modes, one mount each" },
	{ .name = "size_mb", .type = HB_PARAM_LONG, .def = "64", .min = 4, .max = 1024,
	  .help = "file size of each job (HB_FIO_SIZE)" },
	{ .name = "runtime_s", .type = HB_PARAM_LONG, .def = "3", .min = 1, .max = 600,
	  .help = "seconds of each time-based (read) job (HB_FIO_RUNTIME)" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_fio = {
	.name = "fio",
	.help = "fio job files (configs/fio) on huge and non-huge tmpfs; json+ into metrics/checks",
	.unsupported = hb_huge_tmpfs_probe,
	.run = fio_run,
	.params = fio_params,
	.tool = "fio",
};
