#!/usr/bin/env python3
"""aa_2x2_calib.py - real 2 + 2 A/A splits, each with a calibration of the
other boots (issue 34; aa_study takes one calibration for every split).

  bench/aa_2x2_calib.py [--splits N] [--seed S] [--work DIR] HUGEBENCH... -- BOOT_DIR...

BOOT_DIRs: boot folders (boot-K/ of run groups) of one kernel, at least 7.
For N random splits (distinct; default 150, seed 34) two boots are BASE,
two NEW, and the others are measured with `HUGEBENCH calibrate --from`;
then `HUGEBENCH compare-report --calibration` of BASE and NEW. Each
HUGEBENCH (e.g. the binary before and after a rule change) sees the same
splits. Prints the exit codes and the metrics flagged as regressions.
Groups are symlink folders under --work (default a new temporary folder).
"""
import argparse, collections, json, os, random, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--splits', type=int, default=150)
ap.add_argument('--seed', type=int, default=34)
ap.add_argument('--work')
ap.add_argument('hugebench', nargs='+')
if '--' not in sys.argv:
    sys.exit('usage: aa_2x2_calib.py [--splits N] [--seed S] HUGEBENCH... -- BOOT_DIR...')
cut = sys.argv.index('--')
a = ap.parse_args(sys.argv[1:cut])
bins = [os.path.abspath(b) for b in a.hugebench]
boots = sorted(os.path.abspath(b) for b in sys.argv[cut + 1:])
if len(boots) < 7 or not bins:
    sys.exit('aa_2x2_calib.py: need a hugebench and >= 7 boot folders')
work = a.work or tempfile.mkdtemp(prefix='hb-aa2x2-')


def group(name, bs):
    d = os.path.join(work, name)
    subprocess.run(['rm', '-rf', d], check=True)
    os.makedirs(d)
    runs = []
    for k, b in enumerate(bs, 1):
        os.symlink(b, os.path.join(d, 'boot-%d' % k))
        runs.append({'boot': k, 'dir': 'boot-%d' % k, 'verdict': 'pass'})
    first = json.load(open(os.path.join(bs[0], 'result.json')))
    json.dump({'schema': 'hugebench-group/1', 'group_id': 'aa2x2/' + name,
               'target': first['target']['name'], 'suite': first.get('suite', {}).get('name', '-')
               if isinstance(first.get('suite'), dict) else first.get('suite', '-'),
               'boots': len(bs), 'jobs': 1, 'runs': runs, 'created': first.get('created'),
               'exit_code': 0}, open(os.path.join(d, 'group.json'), 'w'))
    return d


n = len(boots)
rng = random.Random(a.seed)
seen, splits = set(), []
limit = n * (n - 1) * (n - 2) * (n - 3) // 4
while len(splits) < min(a.splits, limit):
    p = rng.sample(range(n), 4)
    key = (tuple(sorted(p[:2])), tuple(sorted(p[2:])))
    if key not in seen:
        seen.add(key)
        splits.append(p)
codes = {b: collections.Counter() for b in bins}
flags = {b: collections.Counter() for b in bins}
for p in splits:
    ga = group('a', [boots[j] for j in p[:2]])
    gb = group('b', [boots[j] for j in p[2:]])
    gc = group('c', [boots[j] for j in range(n) if j not in p])
    for k, hb in enumerate(bins):
        cal = os.path.join(work, 'cal-%d.json' % k)
        subprocess.run([hb, 'calibrate', '--from', gc, '--output', cal], capture_output=True,
                       check=True)
        r = subprocess.run([hb, 'compare-report', '--format', 'json', '--calibration', cal, ga, gb],
                           capture_output=True, text=True)
        codes[hb][r.returncode] += 1
        if r.returncode == 1:
            for m in json.loads(r.stdout)['comparisons'][0]['metrics']:
                if m['verdict'] == 'regression':
                    flags[hb][m['workload'] + '.' + m['name']] += 1
for hb in bins:
    print('%s: %d splits of %d boots, 2 + 2, calibration of the other %d: exit codes %s; '
          'flagged %s' % (hb, len(splits), n, n - 4, dict(sorted(codes[hb].items())),
                          dict(flags[hb]) or 'none'))
