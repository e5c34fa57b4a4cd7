# result.json is a symlink to a file that is not JSON (a secret): the error
# line may name the path and a position, never the content.
printf 'password=hunter2-TOKEN-5f3a\nsecond line\n' >secret.txt
ln -s secret.txt result.json
