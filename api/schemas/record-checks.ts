/**
 * Compile-time checks that a wire schema and the record a repository presents agree field for field
 * (`Assert<Same<z.infer<typeof schema>, Record>>`): the entity stays the one declaration of a record.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;
