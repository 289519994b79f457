#!/bin/bash
# Extract the BTF of a kernel image, as /sys/kernel/btf/vmlinux would
# give it once booted:
#
#   scripts/extract-btf.sh VMLINUZ OUT.btf
#
# VMLINUZ is what a distribution ships in /boot: an x86 bzImage (its
# payload compressed with xz, gzip or zstd), or an arm64 Image (plain or
# gzip). The BTF sits in the image between __start_BTF and __stop_BTF;
# it is found by its header and checked by bpftool.
set -euo pipefail

in=$1
out=$2
die() { echo "extract-btf: $*" >&2; exit 1; }
[ -r "$in" ] || die "cannot read $in"
command -v bpftool > /dev/null || die "bpftool missing: apt-get install bpftool"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The image to search: an x86 bzImage's payload (its boot protocol
# header says where it is) decompressed, else the file itself.
decompress() {
	case "$(head -c 6 "$1" | od -An -tx1 | tr -d ' \n')" in
	fd377a585a00) xz -dc --single-stream "$1" ;;
	1f8b*) gzip -dc "$1" ;;
	28b52ffd*) zstd -dcq "$1" ;;
	*) cat "$1" ;;
	esac
}

image=$tmp/image
if [ "$(dd if="$in" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ]; then
	perl -e 'local $/; open(my $f, "<:raw", $ARGV[0]) or die; my $d = <$f>;
		my $sects = unpack("C", substr($d, 0x1f1, 1)) || 4;
		my ($off, $len) = unpack("V2", substr($d, 0x248, 8));
		print substr($d, ($sects + 1) * 512 + $off, $len);' "$in" \
		> "$tmp/payload"
	decompress "$tmp/payload" > "$image" ||
		die "$in: cannot decompress the bzImage payload"
else
	decompress "$in" > "$image" || die "$in: cannot decompress"
fi
[ -s "$image" ] || die "$in: cannot decompress the kernel image"

# struct btf_header: magic 0xeb9f, version 1, flags 0, hdr_len 24,
# type_off 0, type_len, str_off == type_len, str_len.
perl -0777 -e '
	open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
	local $/; my $d = <$f>;
	my $pos = 0;
	while (($pos = index($d, "\x9f\xeb\x01\x00\x18\x00\x00\x00", $pos)) >= 0) {
		my ($toff, $tlen, $soff, $slen) =
			unpack("V4", substr($d, $pos + 8, 16));
		if ($toff == 0 && $soff == $tlen && $slen > 0 &&
		    $pos + 24 + $soff + $slen <= length($d) &&
		    substr($d, $pos + 24 + $soff, 1) eq "\0") {
			open(my $o, ">:raw", $ARGV[1]) or die "$ARGV[1]: $!\n";
			print $o substr($d, $pos, 24 + $soff + $slen);
			exit 0;
		}
		$pos++;
	}
	exit 1;' "$image" "$tmp/btf" || die "$in: no BTF found (CONFIG_DEBUG_INFO_BTF?)"
bpftool btf dump file "$tmp/btf" format raw > /dev/null 2>&1 ||
	die "$in: the BTF found does not parse"
mv "$tmp/btf" "$out"
