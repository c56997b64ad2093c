#!/bin/busybox sh
# /init of the tiny guest that samples/make-captures.sh records. It makes, in ~2 s:
# timer interrupts (sleeps), cross-vCPU IPIs (processes pinned to different CPUs
# waking each other through FIFOs; TLB shootdowns from ipi-storm), serial output (printk-timestamped lines through
# /dev/kmsg and plain lines written to the console), and a level-triggered device
# interrupt (virtio-blk read with pci=nomsi, so its INTx goes through the IOAPIC).
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod "/lib/modules/$m"; done
# irqflow.guest_trace=1: this guest traces its own interrupt events, enabled from boot by
# trace_event= on the command line; they are saved at the end (below).
guest_trace=$(grep -c 'irqflow\.guest_trace=1' /proc/cmdline)
if [ "$guest_trace" = 1 ]; then mount -t tracefs nodev /sys/kernel/tracing; fi
say() { echo "<2>irqflow: $*" > /dev/kmsg; }   # level 2 passes 'quiet'
plain() { echo "$*" > /dev/console; }

# irqflow.rounds=N on the kernel command line repeats the workload (bigger captures
# for benchmarks); the committed samples use 1.
rounds=$(sed -n 's/.*irqflow\.rounds=\([0-9]*\).*/\1/p' /proc/cmdline); rounds=${rounds:-1}
plain "irqflow-workload: start, $(nproc) cpus, $rounds round(s)"
say "pv features: $(dmesg | grep -o 'kvm-guest: .*' | tr '\n' ';')"
mkfifo /tmp/a /tmp/b /tmp/c /tmp/d
# irqflow.illegal_ipi=1: first of all one IPI with an exception's vector
# (samples/illegal-ipi.c), for the fail-fast run of a live check.
if grep -q 'irqflow\.illegal_ipi=1' /proc/cmdline; then illegal-ipi > /dev/console; sleep 0.5; fi
r=0
while [ $r -lt $rounds ]; do r=$((r+1))
# Ping-pong pairs on distinct CPUs: every hop wakes a task on another vCPU (IPI).
taskset 0x2 sh -c 'exec 3</tmp/a 4>/tmp/b; while read -r x <&3; do echo "$x" >&4; done' &
taskset 0x8 sh -c 'exec 3</tmp/c 4>/tmp/d; while read -r x <&3; do echo "$x" >&4; done' &
taskset 0x1 sh -c 'exec 4>/tmp/a 3</tmp/b; i=0; while [ $i -lt 150 ]; do echo $i >&4; read -r y <&3; i=$((i+1)); done; exec 4>&-' &
taskset 0x4 sh -c 'exec 4>/tmp/c 3</tmp/d; i=0; while [ $i -lt 150 ]; do echo $i >&4; read -r y <&3; i=$((i+1)); done; exec 4>&-' &
# TLB shootdowns of a process live on every CPU: multi-destination IPIs.
ipi-storm 150 > /dev/console &
# Level-triggered disk interrupts, and page-cache drops that IPI every CPU.
for i in 1 2 3; do
  dd if=/dev/vda of=/dev/null bs=64k 2>/dev/null
  echo 3 > /proc/sys/vm/drop_caches
  say "disk pass $i done"
  plain "plain line $i: timer tick wait"
  sleep 0.05
done
wait
done
plain "irqflow-workload: done"
if [ "$guest_trace" = 1 ]; then
  echo 0 > /sys/kernel/tracing/tracing_on
  # the events traced need no kernel symbols: an empty kallsyms keeps the file small
  : > /tmp/kallsyms; mount -o bind /tmp/kallsyms /proc/kallsyms
  (cd /tmp && trace-cmd extract -o guest.dat > /dev/null 2>&1)
  for d in /sys/block/vd*; do
    if [ "$(cat $d/serial 2>/dev/null)" = guestout ]; then tar -cf /dev/${d##*/} -C /tmp guest.dat; fi
  done
  sync
  say "guest trace saved: $(wc -c < /tmp/guest.dat) bytes"
fi
say "irqflow: powering off"
poweroff -f
