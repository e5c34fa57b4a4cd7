# 100000 nested arrays: jansson's depth limit must stop it, not the stack.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' >result.json
