/* race_worker.c - one worker of the race workload (issue 37), fsx-style.
 *
 * A worker maps both objects itself (its own VMAs, so mremap moves only its
 * own), keeps a byte model of the bytes it owns (race.h: slices, the tail
 * for worker 0) and runs operations drawn from its own random stream:
 * writes and reads through the mapping and through pwrite/pread, hole
 * punches by fallocate and by MADV_REMOVE inside its bytes, truncate and
 * extend of the tail (worker 0), and, anywhere in the object, the
 * operations that must keep every byte: fallocate(KEEP_SIZE), MADV_PAGEOUT
 * (the swap-in follows at the next access, its own or another worker's),
 * MADV_COLLAPSE, a split through debugfs split_huge_pages, mremap of its
 * mapping to a new (aligned or misaligned) address. Every read, and a full
 * verify every 64 operations and at the end, is compared with the model;
 * the first difference stops the worker with the byte named in why and the
 * last RACE_LOG operations in its ring.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "race.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define RACE_OP_NAME(n) #n,
const char *const race_op_name[RACE_N_OP] = { RACE_OPS(RACE_OP_NAME) };
#undef RACE_OP_NAME

#define SPLIT_KNOB "/sys/kernel/debug/split_huge_pages"

struct rw {
	const struct race_cfg *c;
	struct race_wstat *st;
	int w;
	uint64_t rng;
	char *map[RACE_N_OBJ];
	uint8_t *model[RACE_N_OBJ]; /* owned slices, packed */
	uint8_t *tail[RACE_N_OBJ];  /* worker 0 */
	size_t nslices;		    /* slices below the tail, all workers */
	size_t owned;		    /* slices of this worker */
	size_t eof[RACE_N_OBJ];	    /* worker 0: i_size now */
	uint8_t *buf;		    /* RACE_SLICE */
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t race_worker_seed(uint64_t seed, int w)
{
	uint64_t x = seed ^ ((uint64_t)(w + 1) << 32);

	return splitmix(&x) | 1;
}

static uint64_t rnd(struct rw *r)
{
	return splitmix(&r->rng);
}

static size_t rnd_below(struct rw *r, size_t n)
{
	return n ? (size_t)(rnd(r) % n) : 0;
}

uint8_t race_initial_byte(uint64_t seed, int o, size_t off)
{
	uint64_t x = (seed + (uint64_t)o * 0x51ed27ULL) ^ (off / 8 * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return (uint8_t)(x >> ((off % 8) * 8));
}

void race_fill_initial(uint64_t seed, int o, uint8_t *p, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = race_initial_byte(seed, o, off + i);
}

/* The model byte of object offset off (owned by this worker). */
static uint8_t *model_at(struct rw *r, int o, size_t off)
{
	size_t s;

	if (off >= r->c->size - RACE_TAIL)
		return r->tail[o] + (off - (r->c->size - RACE_TAIL));
	s = off / RACE_SLICE;
	return r->model[o] + (s / (size_t)r->c->workers) * RACE_SLICE + off % RACE_SLICE;
}

static void log_op(struct rw *r, int op, int o, size_t off, size_t len, long arg, int rc)
{
	struct race_rec *e = &r->st->log[r->st->log_next % RACE_LOG];

	e->seq = r->st->seq;
	e->op = op;
	e->obj = o;
	e->off = (long)off;
	e->len = (long)len;
	e->arg = arg;
	e->rc = rc;
	r->st->log_next++;
	r->st->n[op]++;
	if (rc)
		r->st->fail[op]++;
}

static void unexpected(struct rw *r, int op, int o, size_t off, size_t len, int err)
{
	if (!r->st->unexpected && !r->st->bad)
		snprintf(r->st->why, sizeof(r->st->why),
			 "worker %d op %ld %s on %s at %zu+%zu: %s", r->w, r->st->seq,
			 race_op_name[op], o == RACE_FILE ? "file" : "memfd", off, len,
			 strerror(err));
	r->st->unexpected++;
}

/* Compare got (len bytes at object offset off) with the model. */
static bool compare(struct rw *r, int op, int o, size_t off, const uint8_t *got, size_t len)
{
	const uint8_t *want = model_at(r, o, off);

	r->st->verified += (long)len;
	if (!memcmp(want, got, len))
		return true;
	for (size_t i = 0; i < len; i++)
		if (want[i] != got[i]) {
			if (!r->st->bad && !r->st->unexpected)
				snprintf(r->st->why, sizeof(r->st->why),
					 "worker %d op %ld %s: %s byte %zu is 0x%02x, the model "
					 "says 0x%02x (%zu of %zu bytes read differ from here)",
					 r->w, r->st->seq, race_op_name[op],
					 o == RACE_FILE ? "file" : "memfd", off + i, got[i], want[i],
					 len - i, len);
			break;
		}
	r->st->bad++;
	return false;
}

/* A random range of this worker's bytes: inside one owned slice, or (worker
 * 0, one time in 8) inside the tail below its current end of file. With
 * pages set, page aligned. */
static void pick_own(struct rw *r, int o, bool pages, size_t *off, size_t *len)
{
	size_t base = r->c->size - RACE_TAIL, span = r->eof[o] - base, a, b;

	if (pages)
		span -= span % HB_PAGE; /* whole pages below the end of file */
	if (r->w == 0 && span && rnd_below(r, 8) == 0) {
		if (span > RACE_SLICE) { /* a slice-sized window of the tail (r->buf) */
			base += rnd_below(r, (span - RACE_SLICE) / HB_PAGE + 1) * HB_PAGE;
			span = RACE_SLICE;
		}
	} else {
		size_t k = rnd_below(r, r->owned);

		base = (k * (size_t)r->c->workers + (size_t)r->w) * RACE_SLICE;
		span = RACE_SLICE;
	}
	if (pages) {
		size_t np = span / HB_PAGE;

		a = rnd_below(r, np);
		b = a + 1 + rnd_below(r, np - a);
		*off = base + a * HB_PAGE;
		*len = (b - a) * HB_PAGE;
		return;
	}
	a = rnd_below(r, span);
	b = a + 1 + rnd_below(r, span - a);
	*off = base + a;
	*len = b - a;
}

/* A random page-aligned range anywhere in the object (up to 4 MiB). */
static void pick_any(struct rw *r, size_t *off, size_t *len)
{
	size_t np = r->c->size / HB_PAGE, a = rnd_below(r, np);
	size_t max = np - a < 1024 ? np - a : 1024;

	*off = a * HB_PAGE;
	*len = (1 + rnd_below(r, max)) * HB_PAGE;
}

static int map_obj(struct rw *r, int o, bool misalign)
{
	size_t res = r->c->size + 2 * HB_HPAGE;
	char *raw = mmap(NULL, res, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *at, *p;

	if (raw == MAP_FAILED)
		return -errno;
	at = (char *)(((uintptr_t)raw + HB_HPAGE - 1) & ~(HB_HPAGE - 1)) + (misalign ? HB_PAGE : 0);
	if (r->map[o])
		p = mremap(r->map[o], r->c->size, r->c->size, MREMAP_MAYMOVE | MREMAP_FIXED, at);
	else
		p = mmap(at, r->c->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->c->fd[o],
			 0);
	if (p == MAP_FAILED) {
		int e = errno;

		munmap(raw, res);
		return -e;
	}
	/* keep only the mapping: the rest of the reservation goes */
	if (at > raw)
		munmap(raw, (size_t)(at - raw));
	if (raw + res > at + r->c->size)
		munmap(at + r->c->size, (size_t)(raw + res - (at + r->c->size)));
	r->map[o] = p;
	return 0;
}

/* Every owned byte of object o through the mapping (faults, swap-ins). */
static bool verify_all(struct rw *r, int o)
{
	for (size_t k = 0; k < r->owned; k++) {
		size_t off = (k * (size_t)r->c->workers + (size_t)r->w) * RACE_SLICE;

		if (!compare(r, RACE_OP_verify, o, off, (uint8_t *)r->map[o] + off, RACE_SLICE))
			return false;
	}
	if (r->w == 0) {
		size_t base = r->c->size - RACE_TAIL;

		return compare(r, RACE_OP_verify, o, base, (uint8_t *)r->map[o] + base,
			       r->eof[o] - base);
	}
	return true;
}

static void op_write(struct rw *r, int o, bool mapped)
{
	size_t off, len;
	int rc = 0;

	pick_own(r, o, false, &off, &len);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rnd(r);

		memcpy(r->buf + i, &v, len - i < 8 ? len - i : 8);
	}
	if (mapped)
		memcpy(r->map[o] + off, r->buf, len);
	else if (pwrite(r->c->fd[o], r->buf, len, (off_t)off) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	log_op(r, mapped ? RACE_OP_mwrite : RACE_OP_pwrite, o, off, len, 0, rc);
	if (rc) {
		unexpected(r, RACE_OP_pwrite, o, off, len, -rc);
		return;
	}
	memcpy(model_at(r, o, off), r->buf, len);
}

static void op_read(struct rw *r, int o, bool mapped)
{
	int op = mapped ? RACE_OP_mread : RACE_OP_pread;
	size_t off, len;
	int rc = 0;

	pick_own(r, o, false, &off, &len);
	if (mapped)
		memcpy(r->buf, r->map[o] + off, len);
	else if (pread(r->c->fd[o], r->buf, len, (off_t)off) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	log_op(r, op, o, off, len, 0, rc);
	if (rc)
		unexpected(r, op, o, off, len, -rc);
	else
		compare(r, op, o, off, r->buf, len);
}

static void op_punch(struct rw *r, int o, bool madv)
{
	int op = madv ? RACE_OP_remove : RACE_OP_punch;
	size_t off, len;
	int rc = 0;

	pick_own(r, o, true, &off, &len);
	if (madv ? madvise(r->map[o] + off, len, MADV_REMOVE)
		 : fallocate(r->c->fd[o], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			     (off_t)len))
		rc = -errno;
	log_op(r, op, o, off, len, 0, rc);
	if (rc)
		unexpected(r, op, o, off, len, -rc);
	else
		memset(model_at(r, o, off), 0, len);
}

/* Worker 0: i_size down into the tail, the bytes left checked through
 * pread, back up to the full size; the cut part reads zero. */
static void op_truncate(struct rw *r, int o)
{
	size_t base = r->c->size - RACE_TAIL;
	size_t cut = HB_PAGE * (1 + rnd_below(r, RACE_TAIL / HB_PAGE));
	size_t to = r->c->size - cut, keep;
	int rc = 0;

	if (rnd_below(r, 4) == 0 && to - base >= HB_PAGE) /* not page aligned */
		to -= 1 + rnd_below(r, HB_PAGE - 1);
	keep = to - base;
	r->st->cur.off = (long)to;
	if (ftruncate(r->c->fd[o], (off_t)to))
		rc = -errno;
	log_op(r, RACE_OP_truncate, o, to, cut, 0, rc);
	if (rc) {
		unexpected(r, RACE_OP_truncate, o, to, cut, -rc);
		return;
	}
	r->eof[o] = to;
	memset(model_at(r, o, to), 0, r->c->size - to);
	if (keep && rnd_below(r, 2)) {
		size_t n = keep < RACE_SLICE ? keep : RACE_SLICE, at = base + keep - n;

		if (pread(r->c->fd[o], r->buf, n, (off_t)at) != (ssize_t)n)
			unexpected(r, RACE_OP_truncate, o, at, n, errno ? errno : EIO);
		else
			compare(r, RACE_OP_truncate, o, at, r->buf, n);
	}
	if (rnd_below(r, 8) == 0)
		return; /* stays short until the next truncate (or the end) */
	if (ftruncate(r->c->fd[o], (off_t)r->c->size)) {
		unexpected(r, RACE_OP_truncate, o, r->c->size, 0, errno);
		return;
	}
	r->eof[o] = r->c->size;
}

static void op_global(struct rw *r, int op, int o)
{
	size_t off, len;
	long arg = 0;
	int rc = 0;

	pick_any(r, &off, &len);
	switch (op) {
	case RACE_OP_falloc:
		if (fallocate(r->c->fd[o], FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
			rc = -errno;
		break;
	case RACE_OP_pageout:
		if (madvise(r->map[o] + off, len, MADV_PAGEOUT))
			rc = -errno;
		break;
	case RACE_OP_collapse:
		off = rnd_below(r, r->c->size / HB_HPAGE) * HB_HPAGE;
		len = HB_HPAGE;
		if (madvise(r->map[o] + off, len, MADV_COLLAPSE))
			rc = -errno; /* EAGAIN, EINVAL, ENOMEM: an attempt; counted */
		break;
	case RACE_OP_split: {
		char cmd[192];

		off = rnd_below(r, r->c->size / HB_HPAGE) * HB_HPAGE;
		len = HB_HPAGE;
		arg = r->c->split_orders[rnd_below(r, (size_t)r->c->n_split_orders)];
		if (o == RACE_FILE)
			snprintf(cmd, sizeof(cmd), "%s,0x%zx,0x%zx,%ld", r->c->path, off / HB_PAGE,
				 (off + len) / HB_PAGE, arg);
		else
			snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx,%ld", (int)getpid(),
				 (unsigned long)(r->map[o] + off),
				 (unsigned long)(r->map[o] + off + len), arg);
		rc = hb_write_file(SPLIT_KNOB, cmd);
		break;
	}
	case RACE_OP_mremap:
		arg = (long)rnd_below(r, 2); /* 1: misaligned, PTE-mapped */
		off = 0;
		len = r->c->size;
		rc = map_obj(r, o, arg);
		break;
	default:
		break;
	}
	log_op(r, op, o, off, len, arg, rc);
	/* these must work whatever the race; collapse and split may refuse */
	if (rc && (op == RACE_OP_falloc || op == RACE_OP_pageout || op == RACE_OP_mremap))
		unexpected(r, op, o, off, len, -rc);
}

static int pick_op(struct rw *r)
{
	/* weights: data ops most, the rest often enough to race */
	static const unsigned char wt[RACE_N_OP] = {
		[RACE_OP_mwrite] = 14, [RACE_OP_pwrite] = 8, [RACE_OP_mread] = 14,
		[RACE_OP_pread] = 8,   [RACE_OP_punch] = 8,	[RACE_OP_remove] = 4,
		[RACE_OP_falloc] = 4,  [RACE_OP_pageout] = 8, [RACE_OP_collapse] = 4,
		[RACE_OP_split] = 4,   [RACE_OP_mremap] = 2,	[RACE_OP_truncate] = 4,
		[RACE_OP_verify] = 1,
	};
	unsigned total = 0, x, w;

	for (int i = 0; i < RACE_N_OP; i++)
		total += r->c->ops & (1u << i) ? wt[i] : 0;
	x = (unsigned)rnd_below(r, total);
	for (int i = 0; i < RACE_N_OP; i++) {
		w = r->c->ops & (1u << i) ? wt[i] : 0;
		if (x < w)
			return i;
		x -= w;
	}
	return RACE_OP_mread;
}

static bool step(struct rw *r)
{
	int op = pick_op(r), o = (int)rnd_below(r, RACE_N_OBJ);

	r->st->cur = (struct race_rec){ .seq = r->st->seq, .op = op, .obj = o, .off = -1 };

	switch (op) {
	case RACE_OP_mwrite: op_write(r, o, true); break;
	case RACE_OP_pwrite: op_write(r, o, false); break;
	case RACE_OP_mread: op_read(r, o, true); break;
	case RACE_OP_pread: op_read(r, o, false); break;
	case RACE_OP_punch: op_punch(r, o, false); break;
	case RACE_OP_remove: op_punch(r, o, true); break;
	case RACE_OP_truncate:
		if (r->w == 0)
			op_truncate(r, o);
		break;
	case RACE_OP_split:
		if (r->c->split)
			op_global(r, op, o);
		break;
	case RACE_OP_collapse:
		if (r->c->collapse)
			op_global(r, op, o);
		break;
	case RACE_OP_verify:
		log_op(r, op, o, 0, r->c->size, 0, 0);
		verify_all(r, o);
		break;
	default: op_global(r, op, o); break;
	}
	r->st->seq++;
	if (r->st->seq % 64 == 0)
		verify_all(r, (int)(r->st->seq / 64 % RACE_N_OBJ));
	return !r->st->bad && !r->st->unexpected;
}

void race_worker(const struct race_cfg *c, int w)
{
	struct rw r = { .c = c, .st = &c->ws[w], .w = w, .rng = race_worker_seed(c->seed, w) };

	r.nslices = (c->size - RACE_TAIL) / RACE_SLICE;
	r.owned = r.nslices / (size_t)c->workers +
		  ((size_t)w < r.nslices % (size_t)c->workers ? 1 : 0);
	r.buf = malloc(RACE_SLICE);
	for (int o = 0; o < RACE_N_OBJ; o++) {
		int rc;

		r.eof[o] = c->size;
		r.model[o] = malloc(r.owned * RACE_SLICE + 1);
		r.tail[o] = w == 0 ? malloc(RACE_TAIL) : NULL;
		if (!r.buf || !r.model[o] || (w == 0 && !r.tail[o])) {
			unexpected(&r, RACE_OP_verify, o, 0, 0, ENOMEM);
			goto out;
		}
		for (size_t k = 0; k < r.owned; k++)
			race_fill_initial(c->seed, o, r.model[o] + k * RACE_SLICE,
					  (k * (size_t)c->workers + (size_t)w) * RACE_SLICE,
					  RACE_SLICE);
		if (w == 0)
			race_fill_initial(c->seed, o, r.tail[o], c->size - RACE_TAIL, RACE_TAIL);
		rc = map_obj(&r, o, false);
		if (rc) {
			unexpected(&r, RACE_OP_mremap, o, 0, c->size, -rc);
			goto out;
		}
	}
	while (hb_now_ns() < c->deadline_ns && (!c->max_ops || r.st->seq < c->max_ops))
		if (!step(&r))
			goto out;
	for (int o = 0; o < RACE_N_OBJ; o++) { /* the end: full size, every byte */
		if (w == 0 && r.eof[o] != c->size) {
			if (ftruncate(c->fd[o], (off_t)c->size)) {
				unexpected(&r, RACE_OP_truncate, o, c->size, 0, errno);
				goto out;
			}
			r.eof[o] = c->size;
		}
		if (!verify_all(&r, o))
			break;
	}
out:
	for (int o = 0; o < RACE_N_OBJ; o++) {
		if (r.map[o])
			munmap(r.map[o], c->size);
		free(r.model[o]);
		free(r.tail[o]);
	}
	free(r.buf);
	r.st->done = 1;
}
