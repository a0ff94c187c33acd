# Every class and branch kind the riscv64 decoder tells apart (RV64GC with the bit-manipulation
# and scalar crypto extensions; the assembler compresses what it can). After "@@" on each line:
# the class the instruction is (load store alu muldiv crypto simd other cond jump call ret ind)
# and the label a direct branch goes to.
	.option rvc
	.text
start:
	ld a0, 8(a1)           # @@ load
	lw a2, 0(sp)           # @@ load
	lbu a3, 1(a4)          # @@ load
	fld fa0, 16(a1)        # @@ load
	lr.d a0, (a1)          # @@ load
	amoadd.w a0, a1, (a2)  # @@ load
	sd a0, 8(a1)           # @@ store
	sw a3, 4(sp)           # @@ store
	sb a3, 1(t2)           # @@ store
	fsd fa0, 16(a1)        # @@ store
	sc.d a2, a3, (a1)      # @@ store
	add a0, a1, a2         # @@ alu
	addi a0, a0, 1         # @@ alu
	addw t0, t1, t2        # @@ alu
	lui a0, 0x12345        # @@ alu
	li a0, 5               # @@ alu
	slli a0, a0, 3         # @@ alu
	c.add a5, a4           # @@ alu
	c.slli a5, 2           # @@ alu
	c.mv a6, a4            # @@ alu
	mul a0, a1, a2         # @@ muldiv
	mulhu a0, a1, a2       # @@ muldiv
	divu a0, a1, a2        # @@ muldiv
	remw a0, a1, a2        # @@ muldiv
	fadd.d fa0, fa1, fa2   # @@ simd
	aes64es a0, a1, a2     # @@ crypto
	aes64dsm a0, a1, a2    # @@ crypto
	aes64ks1i a0, a1, 3    # @@ crypto
	aes64ks2 a0, a1, a2    # @@ crypto
	aes64im a0, a1         # @@ crypto
	sha256sig0 a0, a1      # @@ crypto
	sha256sum1 a0, a1      # @@ crypto
	sha512sig1 a0, a1      # @@ crypto
	sm3p0 a0, a1           # @@ crypto
	sm4ed a0, a1, a2, 1    # @@ crypto
	clz a0, a1             # @@ alu
	andn a0, a1, a2        # @@ alu
	rori a0, a1, 7         # @@ alu
	rev8 a0, a1            # @@ alu
	clmul a0, a1, a2       # @@ crypto
	nop                    # @@ other
	fence                  # @@ other
	ecall                  # @@ other
back:
	beq a0, a1, fwd        # @@ cond fwd
	bgeu a2, a3, back      # @@ cond back
	beqz a0, fwd           # @@ cond fwd
	bnez s0, back          # @@ cond back
	blt t0, t1, fwd        # @@ cond fwd
	j fwd                  # @@ jump fwd
	jal fwd                # @@ call fwd
	jalr a5                # @@ ind
	jr a5                  # @@ ind
	ret                    # @@ ret
	.option push
	.option norvc
	j back                 # @@ jump back
	jal t0, fwd            # @@ call fwd
	ret                    # @@ ret
	jalr ra, 8(a5)         # @@ ind
	.option pop
fwd:
	nop                    # @@ other
