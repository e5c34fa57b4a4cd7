# base/ and new/ as run groups of three boots (see the script)
exec sh ../_three-boot-groups.sh
