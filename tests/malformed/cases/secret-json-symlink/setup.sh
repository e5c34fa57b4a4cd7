# A JSON secret (not a result) behind the symlink: no value may be echoed.
printf '{"schema": "hugebench-result/1", "suite": "quick", "verdict": "sk-live-TOKEN-99", "status": "sk-live-TOKEN-98"}\n' >secret.json
ln -s secret.json result.json
