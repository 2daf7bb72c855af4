package org.soaptestbed.front.container;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;

/**
 * Deep copies by Java serialization, the way a remote EJB call passes arguments and results
 * by value (RMI-IIOP marshalling): the callee never shares an object with the caller.
 * Every non-null value must be {@link java.io.Serializable}; null stays null.
 */
public final class ByValue {

    private ByValue() {
    }

    /** A deep copy of {@code value}, of the same class. */
    @SuppressWarnings("unchecked")
    public static <T> T copy(T value) {
        if (value == null) {
            return null;
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(value);
            }
            ClassLoader loader = value.getClass().getClassLoader();
            try (ObjectInputStream in = new LoaderObjectInputStream(
                    new ByteArrayInputStream(bytes.toByteArray()), loader)) {
                return (T) in.readObject();
            }
        } catch (NotSerializableException e) {
            throw new IllegalArgumentException("cannot pass by value, not Serializable: " + e.getMessage(), e);
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot copy a " + value.getClass().getName() + ": " + e, e);
        }
    }

    /** Copies of each element; the array itself is new too. */
    public static Object[] copyAll(Object[] values) {
        Object[] copies = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            copies[i] = copy(values[i]);
        }
        return copies;
    }

    /** Resolves classes with the copied value's own loader (a web application's, in Tomcat). */
    private static final class LoaderObjectInputStream extends ObjectInputStream {
        private final ClassLoader loader;

        LoaderObjectInputStream(InputStream in, ClassLoader loader) throws IOException {
            super(in);
            this.loader = loader;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // a JDK class or one of another loader: the default resolution below
                }
            }
            return super.resolveClass(desc);
        }
    }
}
