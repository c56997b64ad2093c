#!/usr/bin/env bash
# Make real KVM captures for irqflow's samples/.
#
# With hardware KVM (vmx/svm in /proc/cpuinfo) the guest (L2 below) runs directly on
# this host under `trace-cmd record`. Without it, the script boots Linux with KVM inside
# a QEMU TCG guest (L1) whose emulated CPU has SVM + NPT, and records there: the KVM
# that emits kvm_entry/kvm_inj_virq/kvm_apic_accept_irq is then L1's kvm_amd.
#
# Everything comes from Debian packages; the build lives in a cache dir outside the
# repo ($IRQFLOW_CACHE, default ~/.cache/irqflow-captures). Run as root.
#
#   samples/make-captures.sh [OUTDIR] [VARIANT...]
#
# Each variant writes OUTDIR/<variant>.dat and OUTDIR/<variant>-serial.log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}; shift || true
cache=${IRQFLOW_CACHE:-$HOME/.cache/irqflow-captures}
suite=${IRQFLOW_SUITE:-bookworm}
mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)

# name | extra -cpu properties | extra guest cmdline | extra recorder options |
#   vCPUs (default 4) | extra QEMU options | L1 setup before the run | recorder niceness |
#   command the recorder runs under | recorder (default trace-cmd; irqflow: this tree's
#   `irqflow record`, its stdout in <variant>-live.ndjson, stderr in <variant>-record.log)
all_variants='pveoi-on||
pveoi-on-again||
pveoi-off|,kvm-pv-eoi=off|
pvipi-off|,kvm-pv-ipi=off|
hyperv|,kvm=off,hv-relaxed,hv-vapic,hv-vpindex,hv-synic,hv-time,hv-ipi|earlyprintk=serial,ttyS0
xapic||nox2apic
lost||| -b 4
instance||| -B irqflow
lossy||| -b 4|||hogs|19
pvspin||irqflow.rounds=2||6||slices
pit||noapictimer|
kvmstat||||||perfstat||perf kvm stat record -o /out/kvmstat.perf --
livecheck|||--check --json||||||irqflow
failfast||irqflow.illegal_ipi=1|--check --json --fail-fast --on-finding stop --on-finding-exec "cat > /out/failfast-hook.json"||||||irqflow
hostguest||irqflow.guest_trace=1 trace_event=irq_vectors:*,irq:irq_handler_entry,irq:irq_handler_exit trace_clock=x86-tsc trace_buf_size=4M|-C tsc2nsec||-drive file=/out/guest-out.img,if=none,id=gout,format=raw -device virtio-blk-pci,drive=gout,serial=guestout|guestout
long||irqflow.rounds=12|'
# pveoi-on-again: pveoi-on's settings once more, a second run of the same workload
#   (diff's noise test: two runs of one setup must show no significant change).
# lossy: a 4 KiB ring buffer, the recorder at nice 19 (the guest back at nice 0) and
#   two busy loops at nice 5 starving it: ~half the events lost, in many gaps.
# pvspin: 6 vCPUs on L1's 2 CPUs with long CFS slices, so spinlock waiters halt with
#   interrupts off and are woken by PV kicks (KVM_HC_KICK_CPU).
# pit: no local APIC timer in the guest: its clock event device is QEMU's HPET in legacy
#   mode on IOAPIC pin 2 (vector 0x30), the pin where the in-kernel PIT registered its ack
#   notifier, so each EOI of 0x30 goes on to the IOAPIC. (With -machine hpet=off this
#   guest kept its local APIC timer and never used the PIT.)
# kvmstat: `perf kvm stat record` around the same run, so kvmstat-perf-kvm-stat.txt
#   holds perf's own report of the very exits in kvmstat.dat (README: irqflow stats next
#   to it).
# livecheck: `irqflow record --check` on the usual run; its live findings are compared
#   with `irqflow check` of the file it wrote (tests/test_record_check.cpp).
# failfast: the guest sends one IPI with the illegal vector 0x0f (samples/illegal-ipi.c);
#   `record --check --fail-fast --on-finding stop` must end at that finding with QEMU
#   stopped (L1 then kills it) and a trace.dat that `check` confirms; the finding's JSON
#   as --on-finding-exec got it is failfast-hook.json.
# hostguest: both sides of the interrupts. The guest traces its own interrupt events from
#   boot (trace_event= on its command line, so that vector_config of each IRQ is in it)
#   on the x86-tsc clock; at the end it saves them with `trace-cmd extract` onto a second
#   disk (serial "guestout"), which L1 unpacks into hostguest-guest.dat. The host records
#   with -C tsc2nsec: TSC cycles in the file, nanoseconds through its TSC2NSEC option, so
#   a guest TSC minus the offset KVM gave the vCPU (kvm_write_tsc_offset) is a host time.
# "long" (a ~2M-event capture for benchmarks, not committed) runs only when named.
if [ $# -eq 0 ]; then set -- $(echo "$all_variants" | cut -d'|' -f1 | grep -v '^long$'); fi
if [ $# -gt 0 ]; then
  want=" $* "; variants=$(echo "$all_variants" | while IFS= read -r l; do
    case "$want" in *" ${l%%|*} "*) echo "$l";; esac; done)
else
  variants=$all_variants
fi

need() { command -v "$1" >/dev/null || { echo "make-captures: '$1' missing (apt-get install $2)" >&2; exit 2; }; }
need debootstrap debootstrap; need qemu-system-x86_64 qemu-system-x86; need cpio cpio
need mkfs.ext4 e2fsprogs; need debugfs e2fsprogs; need zstd zstd

mirror() {  # the Debian mirror this host's apt already uses (no host is hard-coded here)
  local m
  m=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
      grep -v security | grep -oE 'https?://[^ ]+' | head -1)
  echo "${m:?no Debian mirror found in /etc/apt}"
}

# --- L1/L2 root filesystem: Debian kernel, QEMU, trace-cmd, perf -----------------
rootfs=$cache/rootfs
# (libtracecmd1 libpq5: what this tree's irqflow binary links besides the others'
# dependencies, for the variants it records)
l1_pkgs="linux-image-amd64 qemu-system-x86 trace-cmd kmod busybox-static linux-perf libtracecmd1 libpq5"
if [ ! -e "$rootfs/.done" ]; then
  rm -rf "$rootfs"
  debootstrap --variant=minbase "$suite" "$rootfs" "$(mirror)"
  touch "$rootfs/.done"
fi
# packages added to the list after a cache was built are installed into it
missing=$(for p in $l1_pkgs; do chroot "$rootfs" dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
  umount "$rootfs/proc"; trap - EXIT
  chroot "$rootfs" apt-get clean
fi
kver=$(ls "$rootfs/lib/modules" | sort -V | tail -1)
vmlinuz=$rootfs/boot/vmlinuz-$kver
echo "make-captures: kernel $kver"

# --- L2 guest: the same kernel + a busybox initramfs running the workload ---------
l2=$cache/l2; rm -rf "$l2"; mkdir -p "$l2"/{bin,proc,sys,dev,lib/modules,tmp}
cp "$rootfs/bin/busybox" "$l2/bin/busybox"
# virtio-blk and virtio-pci are modules in Debian's kernel; take them and their
# dependencies. modules.dep lists a module's dependencies so that loading them
# from last to first works.
: > "$l2/modules.order"
for target in virtio_pci virtio_blk msr; do
  line=$(grep -E "/$target\.ko(\.xz|\.zst)?:" "$rootfs/lib/modules/$kver/modules.dep" || true)
  [ -n "$line" ] || continue
  deps=${line#*:}
  for m in $(echo $deps | tr ' ' '\n' | tac) ${line%%:*}; do
    f=$rootfs/lib/modules/$kver/$m; b=$(basename "$m")
    case "$b" in
      *.xz) b=${b%.xz}; xz -dc "$f" > "$l2/lib/modules/$b";;
      *.zst) b=${b%.zst}; zstd -qdc "$f" > "$l2/lib/modules/$b";;
      *) cp "$f" "$l2/lib/modules/$b";;
    esac
    grep -qx "$b" "$l2/modules.order" || echo "$b" >> "$l2/modules.order"
  done
done
cp "$here/guest-workload.sh" "$l2/init"; chmod +x "$l2/init"
# trace-cmd and the libraries it loads, for the guest that traces itself (hostguest)
cp "$rootfs/usr/bin/trace-cmd" "$l2/bin/trace-cmd"
for lib in $(chroot "$rootfs" ldd /usr/bin/trace-cmd | grep -oE '/[^ ]+'); do
  mkdir -p "$l2$(dirname "$lib")"; cp -L "$rootfs$lib" "$l2$lib"
done
need gcc "gcc libc6-dev"
gcc -O2 -static -pthread -o "$l2/bin/ipi-storm" "$here/ipi-storm.c"
gcc -O2 -static -o "$l2/bin/illegal-ipi" "$here/illegal-ipi.c"
(cd "$l2" && find . | cpio -o -H newc --quiet | gzip -1) > "$cache/l2-initrd.gz"

run_l2_cmd() {  # $1 variant line, $2 dir for outputs, $3 kernel, $4 initrd, $5 disk, $6 irqflow binary
  local name cpu append topts smp qopts setup nice wrap rec pre= recorder serial after=
  IFS='|' read -r name cpu append topts smp qopts setup nice wrap rec <<< "$1"
  if [ -n "$nice" ]; then pre="nice -n $nice"; fi
  recorder="trace-cmd record -e kvm $topts"
  serial="-chardev stdio,id=ser,signal=off,logfile=$2/$name-serial.log"
  if [ "$rec" = irqflow ]; then
    # irqflow's stdout carries its findings: the console goes to the log file only, and
    # a QEMU that --on-finding stop left stopped is killed after it
    recorder="$6 record $topts"
    serial="-chardev file,id=ser,path=$2/$name-serial.log"
    after=" > $2/$name-live.ndjson 2> $2/$name-record.log; busybox killall -9 timeout qemu-system-x86_64 2>/dev/null"
  fi
  # the recorder alone is niced: the guest's nice -n -$nice brings it back to 0
  echo "$pre $wrap $recorder -o $2/$name.dat -- ${nice:+nice -n -$nice} timeout 300 qemu-system-x86_64 -enable-kvm" \
       "-M pc -cpu host$cpu -smp ${smp:-4} -m 256 -nodefaults -display none -monitor none -no-reboot" \
       "-kernel $3 -initrd $4 -drive file=$5,if=virtio,format=raw $qopts" \
       "$serial -serial chardev:ser" \
       "-append 'console=ttyS0 quiet pci=noearly pci=nomsi panic=-1 $append'$after"
}
# The irqflow binary the irqflow-recorded variants run (this tree's build by default).
irqflow_bin=${IRQFLOW_BIN:-$here/../build/ui/irqflow}
if echo "$variants" | grep -q '|irqflow$'; then
  [ -x "$irqflow_bin" ] || { echo "make-captures: no irqflow binary at $irqflow_bin (build first, or set IRQFLOW_BIN)" >&2; exit 2; }
fi

if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
  # Hardware KVM: record right here.
  need trace-cmd trace-cmd
  dd if=/dev/urandom of="$cache/l2-disk.img" bs=1M count=4 status=none
  echo "$variants" | while IFS= read -r v; do
    [ -n "$v" ] || continue
    eval "$(run_l2_cmd "$v" "$out" "$vmlinuz" "$cache/l2-initrd.gz" "$cache/l2-disk.img" "$irqflow_bin")" || true
  done
  exit 0
fi

# --- No hardware KVM: L1 = Debian under TCG with emulated SVM+NPT ----------------
echo "make-captures: no vmx/svm here; recording inside a TCG guest with nested SVM"
stage=$cache/stage; rm -rf "$stage"; mkdir -p "$stage/irqflow"
cp "$vmlinuz" "$stage/irqflow/vmlinuz"
cp "$cache/l2-initrd.gz" "$stage/irqflow/l2-initrd.gz"
dd if=/dev/urandom of="$stage/irqflow/disk.img" bs=1M count=4 status=none
if [ -x "$irqflow_bin" ]; then mkdir -p "$stage/irqflow/bin"; cp "$irqflow_bin" "$stage/irqflow/bin/irqflow"; fi
{
  echo '#!/bin/sh'
  echo 'exec > /dev/console 2>&1'
  echo 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev'
  echo 'mount -t tracefs tracefs /sys/kernel/tracing; mkdir -p /out; mount /dev/vdb /out'
  echo 'modprobe kvm_amd; ls -l /dev/kvm'
  # trace.dat embeds /proc/kallsyms (MBs); the guest-side events never need it.
  echo 'grep -E " (kvm|svm)" /proc/kallsyms > /tmp/kallsyms; mount --bind /tmp/kallsyms /proc/kallsyms'
  echo 'uname -r > /out/host-kernel.txt'
  # long CFS slices (pvspin): a preempted lock holder stays off-CPU long enough for
  # its waiters to halt
  echo 'slices() { mount -t debugfs none /sys/kernel/debug 2>/dev/null; d=/sys/kernel/debug/sched
    echo 20000000 > $d/min_granularity_ns; echo 60000000 > $d/latency_ns; echo 20000000 > $d/wakeup_granularity_ns; }'
  echo 'unslices() { d=/sys/kernel/debug/sched; [ -d $d ] || return 0
    echo 750000 > $d/min_granularity_ns; echo 6000000 > $d/latency_ns; echo 1000000 > $d/wakeup_granularity_ns; }'
  # busy loops that starve a niced recorder (lossy)
  echo 'hogs() { nice -n 5 sh -c "while :; do :; done" & H1=$!; nice -n 5 sh -c "while :; do :; done" & H2=$!; }'
  echo 'unhogs() { kill $H1 $H2; }'
  # the disk the guest saves its own trace on (hostguest): a tar of guest.dat
  echo 'guestout() { dd if=/dev/zero of=/out/guest-out.img bs=1M count=48 2>/dev/null; }'
  echo 'unguestout() { tar -xOf /out/guest-out.img guest.dat > /out/hostguest-guest.dat; rm -f /out/guest-out.img; }'
  # perf kvm stat's reports of the run it recorded (kvmstat), all vCPUs and vCPU 1
  echo 'perfstat() { :; }'
  echo 'unperfstat() { perf kvm -i /out/kvmstat.perf stat report > /out/kvmstat-perf-kvm-stat.txt 2>&1
    perf kvm -i /out/kvmstat.perf stat report --vcpu 1 > /out/kvmstat-perf-kvm-stat-vcpu1.txt 2>&1; }'
  echo "$variants" | while IFS= read -r v; do
    [ -n "$v" ] || continue
    setup=$(echo "$v" | cut -d'|' -f7)
    echo "echo '== variant ${v%%|*}'"
    if [ -n "$setup" ]; then echo "$setup"; fi
    echo "$(run_l2_cmd "$v" /out /irqflow/vmlinuz /irqflow/l2-initrd.gz /irqflow/disk.img /irqflow/bin/irqflow) < /dev/null; sync"
    if [ -n "$setup" ]; then echo "un$setup"; fi
  done
  echo 'sync; umount /out; echo o > /proc/sysrq-trigger; sleep 5'
} > "$stage/irqflow/l1-init.sh"
chmod +x "$stage/irqflow/l1-init.sh"

img=$cache/l1.ext4; outimg=$cache/out.ext4
rm -f "$img" "$outimg"
# One image: the cached root fs plus this run's stage dir.
cp -a "$stage/irqflow" "$rootfs/irqflow"
mkfs.ext4 -q -F -d "$rootfs" "$img" 3G; rm -rf "$rootfs/irqflow"
mkfs.ext4 -q -F "$outimg" 512M
initrd=$rootfs/boot/initrd.img-$kver
timeout 3600 qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64,+svm,+npt -smp 2 -m 3072 \
  -nodefaults -display none -serial stdio -no-reboot \
  -kernel "$vmlinuz" -initrd "$initrd" \
  -drive file="$img",if=virtio,format=raw -drive file="$outimg",if=virtio,format=raw \
  -append "root=/dev/vda rw console=ttyS0 tsc=reliable init=/irqflow/l1-init.sh" \
  | tee "$cache/l1-console.log"
rm -rf "$cache/outdir"; mkdir -p "$cache/outdir"
debugfs -R "rdump / $cache/outdir" "$outimg" >/dev/null 2>&1
for f in "$cache"/outdir/*.dat "$cache"/outdir/*-serial.log "$cache"/outdir/*-perf-kvm-stat*.txt \
         "$cache"/outdir/*-live.ndjson "$cache"/outdir/*-record.log "$cache"/outdir/*-hook.json \
         "$cache"/outdir/host-kernel.txt; do
  if [ -e "$f" ]; then cp -v "$f" "$out"/; fi
done
# irqflow writes raw v6 pages, a partial one per CPU every read round: its files are
# kept compressed (7 MB -> 0.6 MB; the tests inflate them with libzstd)
for n in $(echo "$variants" | awk -F'|' '$10 == "irqflow" {print $1}'); do
  if [ -e "$out/$n.dat" ]; then zstd -q -19 -f --rm "$out/$n.dat" -o "$out/$n.dat.zst"; fi
done
