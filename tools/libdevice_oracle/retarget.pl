#!/usr/bin/perl
# Rewrites disassembled NVPTX libdevice IR into x86-64 IR (see build.sh):
# - x86-64 triple and datalayout; address spaces dropped (globals become ordinary memory);
# - every @llvm.nvvm.X intrinsic becomes a call to the C function oracle_nvvm_X (dots -> '_');
# - the two inline-asm sites become calls: the mad.lo.cc/madc.hi pair (a 32x32+32 -> 64-bit
#   multiply-add, defined below in IR) and rcp.approx.ftz.f32 (the MUFU hook in C).
use strict;
use warnings;
my $seen_mad = 0;
while (my $line = <STDIN>) {
  if ($line =~ /^target datalayout/) {
    $line = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"\n";
  } elsif ($line =~ /^target triple/) {
    $line = "target triple = \"x86_64-pc-linux-gnu\"\n";
  }
  $line =~ s/ addrspace\(\d+\)//g;
  $line =~ s/\@llvm\.nvvm\.([A-Za-z0-9_.]+)/my $n = $1; $n =~ tr{.}{_}; "\@oracle_nvvm_$n"/ge;
  if ($line =~ s/call \{ i32, i32 \} asm "\{\\0A\\09mad\.lo\.cc\.u32[^"]*", "=r,=r,r,r,r"\(/call { i32, i32 } \@oracle_mad_wide(/) {
    $seen_mad = 1;
  }
  $line =~ s/call float asm "rcp\.approx\.ftz\.f32 \$0,\$1;", "=f,f"\(/call float \@oracle_mufu_rcp_ftz(/;
  $line =~ s/, !srcloc !\d+//;
  print $line;
}
print "declare float \@oracle_mufu_rcp_ftz(float)\n";
print <<'IR';
define internal { i32, i32 } @oracle_mad_wide(i32 %a, i32 %b, i32 %c) {
  %a64 = zext i32 %a to i64
  %b64 = zext i32 %b to i64
  %c64 = zext i32 %c to i64
  %p = mul i64 %a64, %b64
  %s = add i64 %p, %c64
  %lo = trunc i64 %s to i32
  %sh = lshr i64 %s, 32
  %hi = trunc i64 %sh to i32
  %r0 = insertvalue { i32, i32 } undef, i32 %lo, 0
  %r1 = insertvalue { i32, i32 } %r0, i32 %hi, 1
  ret { i32, i32 } %r1
}
IR
