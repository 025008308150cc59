package dev.vitals.agent.impl;

import dev.vitals.agent.impl.ExecutorInstrumentation.Arg;
import dev.vitals.agent.impl.ExecutorInstrumentation.Target;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Adds the {@link ExecutorInstrumentation} hooks to one target class's bytes with ASM's core
 * (relocated into the agent), and nothing else: the only class that names ASM, so ASM loads when
 * the first target's bytes arrive. One pass, reader to writer, keeping the constant pool and
 * copying the methods it does not touch as they are; no class is loaded or resolved (no frame
 * computation, so no common-supertype question to the class loaders), and nothing is kept after.
 *
 * <p>Each matched method gets, at entry, {@code WorkerCounter.<enter>(args)}; with an exit hook,
 * the same call before each return instruction and in a catch-all handler over the whole original
 * body that calls it and rethrows. The handler's stack map frame holds only the receiver (every
 * target method is an instance method that never assigns slot 0), so no local variable is added
 * and the existing frames stay valid. The outer instance ({@link Arg#OUTER}) is read from the
 * class's {@code this$0} field; a class without one is left unchanged.
 */
final class PoolRewriter {
    private static final String COUNTER = ExecutorInstrumentation.BOOT_CLASS.replace('.', '/');

    private PoolRewriter() {
    }

    /**
     * @param bytes the class file
     * @param target what to add
     * @return the rewritten class file, or null when nothing matched (the class stays as it was)
     */
    static byte[] rewrite(byte[] bytes, Target target) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        Hooks hooks = new Hooks(writer, target);
        reader.accept(hooks, 0);
        return hooks.changed ? writer.toByteArray() : null;
    }

    private static final class Hooks extends ClassVisitor {
        private final Target target;
        private String owner;
        private String outerDescriptor;
        private boolean changed;

        Hooks(ClassVisitor next, Target target) {
            super(Opcodes.ASM9, next);
            this.target = target;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            owner = name;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            if (name.equals("this$0")) {
                outerDescriptor = descriptor;
            }
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (!target.methods.contains(name)
                    || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_STATIC)) != 0
                    || needsOuter() && outerDescriptor == null
                    || target.enterArg == Arg.THIS_AND_FIRST && !firstArgumentIsReference(descriptor)) {
                return mv;
            }
            changed = true;
            return new Hooked(mv);
        }

        private boolean needsOuter() {
            return target.enterArg == Arg.OUTER || target.exitArg == Arg.OUTER;
        }

        private static boolean firstArgumentIsReference(String descriptor) {
            char c = descriptor.length() > 1 ? descriptor.charAt(1) : ')';
            return c == 'L' || c == '[';
        }

        private final class Hooked extends MethodVisitor {
            private final Label start = new Label();

            Hooked(MethodVisitor next) {
                super(Opcodes.ASM9, next);
            }

            @Override
            public void visitCode() {
                super.visitCode();
                call(target.enter, target.enterArg);
                if (target.exit != null) {
                    super.visitLabel(start);
                }
            }

            @Override
            public void visitInsn(int opcode) {
                if (target.exit != null && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                    call(target.exit, target.exitArg);
                }
                super.visitInsn(opcode);
            }

            @Override
            public void visitMaxs(int maxStack, int maxLocals) {
                if (target.exit != null) {
                    // After the original body, which ends in a return, throw or jump: a catch-all
                    // handler that calls the exit hook and rethrows. Last in the exception table,
                    // so the method's own handlers still come first.
                    Label handler = new Label();
                    super.visitTryCatchBlock(start, handler, handler, null);
                    super.visitLabel(handler);
                    super.visitFrame(Opcodes.F_FULL, 1, new Object[] {owner}, 1, new Object[] {"java/lang/Throwable"});
                    call(target.exit, target.exitArg);
                    super.visitInsn(Opcodes.ATHROW);
                }
                // The hooks push at most two references over what the method had on its stack.
                super.visitMaxs(maxStack + 3, Math.max(maxLocals, 1));
            }

            private void call(String hook, Arg arg) {
                switch (arg) {
                    case THIS:
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        break;
                    case OUTER:
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitFieldInsn(Opcodes.GETFIELD, owner, "this$0", outerDescriptor);
                        break;
                    case THIS_AND_FIRST:
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitVarInsn(Opcodes.ALOAD, 1);
                        break;
                    default:
                        break;
                }
                super.visitMethodInsn(Opcodes.INVOKESTATIC, COUNTER, hook, arg.descriptor, false);
            }
        }
    }
}
