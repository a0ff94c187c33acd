// Every class and branch kind the aarch64 decoder tells apart. After "@@" on each line: the
// class the instruction is (load store alu muldiv crypto simd other cond jump call ret ind)
// and the label a direct branch goes to.
	.arch armv8.4-a+crypto+sha3+sm4+sve
	.text
start:
	ldr x0, [x1]                          // @@ load
	ldp x2, x3, [sp, #16]                 // @@ load
	ldr q0, [x1], #16                     // @@ load
	ld1 {v0.16b, v1.16b}, [x0]            // @@ load
	str x0, [x1, #8]                      // @@ store
	stp x29, x30, [sp, #-16]!             // @@ store
	st1 {v0.4s}, [x2]                     // @@ store
	add x0, x1, x2                        // @@ alu
	adds w0, w1, #1                       // @@ alu
	cmp x0, x1                            // @@ alu
	csel x0, x1, x2, eq                   // @@ alu
	ror w3, w4, #7                        // @@ alu
	mov x5, x6                            // @@ alu
	mul x0, x1, x2                        // @@ muldiv
	madd x0, x1, x2, x3                   // @@ muldiv
	umulh x0, x1, x2                      // @@ muldiv
	udiv x0, x1, x2                       // @@ muldiv
	aese v0.16b, v1.16b                   // @@ crypto
	aesmc v0.16b, v0.16b                  // @@ crypto
	sha256h q0, q1, v2.4s                 // @@ crypto
	sha256su0 v0.4s, v1.4s                // @@ crypto
	sha512h q0, q1, v2.2d                 // @@ crypto
	pmull v0.1q, v1.1d, v2.1d             // @@ crypto
	eor3 v0.16b, v1.16b, v2.16b, v3.16b   // @@ crypto
	rax1 v0.2d, v1.2d, v2.2d              // @@ crypto
	eor v0.16b, v1.16b, v2.16b            // @@ simd
	add v0.4s, v1.4s, v2.4s               // @@ simd
	fadd d0, d1, d2                       // @@ simd
	add z0.s, z1.s, z2.s                  // @@ simd
	ld1b {z0.b}, p0/z, [x0]               // @@ load
	nop                                   // @@ other
	dmb ish                               // @@ other
	isb                                   // @@ other
	svc #0                                // @@ other
back:
	b.ne fwd                              // @@ cond fwd
	cbz x0, fwd                           // @@ cond fwd
	cbnz w1, back                         // @@ cond back
	tbz x2, #3, fwd                       // @@ cond fwd
	tbnz w2, #0, back                     // @@ cond back
	b fwd                                 // @@ jump fwd
	bl fwd                                // @@ call fwd
	ret                                   // @@ ret
	br x16                                // @@ ind
fwd:
	blr x1                                // @@ ind
