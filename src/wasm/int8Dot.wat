;; int8 dot-product kernel for the WASM vector index (src/core/capture/vectorIndexInt8.ts).
;; Built to public/wasm/int8-dot.wasm by scripts/build-wasm-kernel.mjs (wabt from npm) at install.
;;
;; scores(query, rows, count, stride, scales, out):
;;   for r in [0, count): out[r] = f32(sum_i query[i] * rows[r*stride + i]) * scales[r]
;; `query` and each row are `stride` int8 bytes (stride a positive multiple of 32, zero-padded past
;; the real dimension); values lie in [-127, 127], so the sum of two int8 products fits in an i16
;; lane (2 * 127 * 127 = 32258 < 32767) and is widened to i32 before accumulating.
(module
  (memory (export "memory") 1)
  (func (export "scores")
    (param $q i32) (param $rows i32) (param $count i32) (param $stride i32) (param $scales i32) (param $out i32)
    (local $r i32) (local $p i32) (local $qi i32) (local $end i32)
    (local $a v128) (local $b v128) (local $acc0 v128) (local $acc1 v128)
    (local.set $p (local.get $rows))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $acc0 (v128.const i32x4 0 0 0 0))
        (local.set $acc1 (v128.const i32x4 0 0 0 0))
        (local.set $qi (local.get $q))
        (local.set $end (i32.add (local.get $p) (local.get $stride)))
        ;; two 16-byte chunks per step, into two accumulators (shorter dependency chains)
        (loop $chunk
          (local.set $a (v128.load (local.get $p)))
          (local.set $b (v128.load (local.get $qi)))
          (local.set $acc0
            (i32x4.add (local.get $acc0)
              (i32x4.extadd_pairwise_i16x8_s
                (i16x8.add
                  (i16x8.extmul_low_i8x16_s (local.get $a) (local.get $b))
                  (i16x8.extmul_high_i8x16_s (local.get $a) (local.get $b))))))
          (local.set $a (v128.load offset=16 (local.get $p)))
          (local.set $b (v128.load offset=16 (local.get $qi)))
          (local.set $acc1
            (i32x4.add (local.get $acc1)
              (i32x4.extadd_pairwise_i16x8_s
                (i16x8.add
                  (i16x8.extmul_low_i8x16_s (local.get $a) (local.get $b))
                  (i16x8.extmul_high_i8x16_s (local.get $a) (local.get $b))))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (local.set $qi (i32.add (local.get $qi) (i32.const 32)))
          (br_if $chunk (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $acc0 (i32x4.add (local.get $acc0) (local.get $acc1)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.mul
            (f32.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc0)) (i32x4.extract_lane 1 (local.get $acc0)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc0)) (i32x4.extract_lane 3 (local.get $acc0)))))
            (f32.load (i32.add (local.get $scales) (i32.shl (local.get $r) (i32.const 2))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row))))
)
