# A valid-looking result whose events hide 5000 nested objects.
awk 'BEGIN { printf "{\"schema\": \"hugebench-result/1\", \"suite\": \"quick\", \"verdict\": \"pass\", \"events\": ";
	for (i = 0; i < 5000; i++) printf "{\"a\": "; printf "1"; for (i = 0; i < 5000; i++) printf "}"; print "}" }' >result.json
