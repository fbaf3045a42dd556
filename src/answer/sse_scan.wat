;; Reads a run of a stream's commonest SSE events where they lie in bytes: the WebAssembly half of
;; src/transport/sse_scan.ts (which says why), compiled into src/transport/sse_scan_wasm.ts by
;; scripts/gen_sse_scan.ts.
;;
;; An event of the run is `head`, then the text (plain JSON string content: no quote, backslash,
;; control character or byte over 0x7f), then `last` (the template's suffix and the blank line).
;; `joint` is `last` followed by `head`: what lies between two texts. In memory the joint is
;; stored once: `last` is its first `lastLen` bytes and `head` the rest.
(module
  (memory (export "memory") 1)

  ;; 1 when the n bytes at a equal the n bytes at b, else 0: 16 bytes at a time, then 8, then 1.
  (func $equal (param $a i32) (param $b i32) (param $n i32) (result i32)
    (block $differ
      (loop $vectors
        (if (i32.ge_u (local.get $n) (i32.const 16))
          (then
            (br_if $differ
              (v128.any_true (v128.xor (v128.load (local.get $a)) (v128.load (local.get $b)))))
            (local.set $a (i32.add (local.get $a) (i32.const 16)))
            (local.set $b (i32.add (local.get $b) (i32.const 16)))
            (local.set $n (i32.sub (local.get $n) (i32.const 16)))
            (br $vectors))))
      (loop $words
        (if (i32.ge_u (local.get $n) (i32.const 8))
          (then
            (br_if $differ (i64.ne (i64.load (local.get $a)) (i64.load (local.get $b))))
            (local.set $a (i32.add (local.get $a) (i32.const 8)))
            (local.set $b (i32.add (local.get $b) (i32.const 8)))
            (local.set $n (i32.sub (local.get $n) (i32.const 8)))
            (br $words))))
      (loop $bytes
        (if (local.get $n)
          (then
            (br_if $differ (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (local.set $b (i32.add (local.get $b) (i32.const 1)))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $bytes))))
      (return (i32.const 1)))
    (i32.const 0))

  ;; Reads events from the `len` bytes at `in`, from offset `pos` (the start of an event), as
  ;; long as each is head, plain text, last. Appends each event's text at `out`. Returns the
  ;; offset where it stopped: after the last event read, or `pos` when it read none. Stores at
  ;; address 0 the number of events read, at 4 the number of those with text (not empty), at 8
  ;; the number of text bytes written.
  (func (export "scan")
    (param $in i32) (param $len i32) (param $pos i32)
    (param $joint i32) (param $jointLen i32) (param $lastLen i32)
    (param $out i32) (result i32)
    (local $head i32) (local $headLen i32)
    (local $start i32) (local $end i32) (local $done i32)
    (local $events i32) (local $texts i32) (local $o i32) (local $c i32) (local $more i32)
    (local.set $head (i32.add (local.get $joint) (local.get $lastLen)))
    (local.set $headLen (i32.sub (local.get $jointLen) (local.get $lastLen)))
    (local.set $done (local.get $pos))
    (local.set $o (local.get $out))
    (block $stop
      (br_if $stop (i32.gt_u (i32.add (local.get $pos) (local.get $headLen)) (local.get $len)))
      (br_if $stop (i32.eqz (call $equal
        (i32.add (local.get $in) (local.get $pos)) (local.get $head) (local.get $headLen))))
      (local.set $start (i32.add (local.get $pos) (local.get $headLen)))
      (loop $event
        ;; The text: plain characters up to the quote that closes it.
        (local.set $end (local.get $start))
        (block $quote
          (loop $text
            (br_if $stop (i32.ge_u (local.get $end) (local.get $len)))
            (local.set $c (i32.load8_u (i32.add (local.get $in) (local.get $end))))
            (br_if $quote (i32.eq (local.get $c) (i32.const 34)))
            (br_if $stop (i32.lt_u (local.get $c) (i32.const 32)))
            (br_if $stop (i32.eq (local.get $c) (i32.const 92)))
            (br_if $stop (i32.ge_u (local.get $c) (i32.const 128)))
            (local.set $end (i32.add (local.get $end) (i32.const 1)))
            (br $text)))
        ;; Then the joint (another event follows) or the last part (the run ends here).
        (local.set $more
          (if (result i32)
            (i32.le_u (i32.add (local.get $end) (local.get $jointLen)) (local.get $len))
            (then (call $equal
              (i32.add (local.get $in) (local.get $end)) (local.get $joint) (local.get $jointLen)))
            (else (i32.const 0))))
        (if (i32.eqz (local.get $more))
          (then
            (br_if $stop
              (i32.gt_u (i32.add (local.get $end) (local.get $lastLen)) (local.get $len)))
            (br_if $stop (i32.eqz (call $equal
              (i32.add (local.get $in) (local.get $end)) (local.get $joint) (local.get $lastLen))))))
        (if (i32.gt_u (local.get $end) (local.get $start))
          (then
            (memory.copy (local.get $o) (i32.add (local.get $in) (local.get $start))
              (i32.sub (local.get $end) (local.get $start)))
            (local.set $o
              (i32.add (local.get $o) (i32.sub (local.get $end) (local.get $start))))
            (local.set $texts (i32.add (local.get $texts) (i32.const 1)))))
        (local.set $events (i32.add (local.get $events) (i32.const 1)))
        (local.set $done (i32.add (local.get $end) (local.get $lastLen)))
        (br_if $stop (i32.eqz (local.get $more)))
        (local.set $start (i32.add (local.get $end) (local.get $jointLen)))
        (br $event)))
    (i32.store (i32.const 0) (local.get $events))
    (i32.store (i32.const 4) (local.get $texts))
    (i32.store (i32.const 8) (i32.sub (local.get $o) (local.get $out)))
    (local.get $done))
)
