# result.json is a folder.
mkdir result.json
