/**
 * Compile-time shapes of element input. `CreateProps<Order>` has exactly the data properties
 * an Order declares: required unless declared with `?` (or readonly, as getters are), nested
 * elements accepted as instances or their own CreateProps, dates as Date or ISO string.
 * Types cannot tell a field from any other public property, so non-field state on an element
 * belongs in `private`/`protected` members (left out here) or in methods.
 */
/**
 * The instance side of BaseDataElement, which implements it: these types test for an element by
 * its shape, so they need not import the class (whose `create` takes CreateArgs from here).
 */
export interface DataElementShape {
  toPlain(): Record<string, unknown>;
  toJSON(): Record<string, unknown>;
  equals(other: unknown): boolean;
}

type IfEquals<X, Y, A, B> = (<G>() => G extends X ? 1 : 2) extends <G>() => G extends Y ? 1 : 2 ? A : B;

type IsData<T, K extends keyof T> = K extends string ? (K extends `_${string}` ? false : T[K] extends Function ? false : true) : false;

type DataKeys<T> = { [K in keyof T]-?: IsData<T, K> extends true ? K : never }[keyof T];
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type ReadonlyKeys<T> = { [K in keyof T]-?: IfEquals<{ [Q in K]: T[K] }, { -readonly [Q in K]: T[K] }, never, K> }[keyof T];

/** What a field of type V accepts on input. */
export type PropInput<V> = V extends Date
  ? Date | string
  : V extends readonly (infer E)[]
    ? readonly PropInput<E>[]
    : V extends DataElementShape
      ? V | CreateProps<V>
      : V;

type RequiredInputKeys<T> = Exclude<DataKeys<T>, OptionalKeys<T> | ReadonlyKeys<T>>;
type OptionalInputKeys<T> = Exclude<DataKeys<T>, RequiredInputKeys<T>>;

type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

export type CreateProps<T> = Expand<
  { [K in RequiredInputKeys<T>]: PropInput<T[K]> } & { [K in OptionalInputKeys<T>]?: PropInput<Exclude<T[K], undefined>> | null }
>;

/** `create()` may omit its argument when nothing is required. */
export type CreateArgs<T> = object extends CreateProps<T> ? [props?: CreateProps<T>] : [props: CreateProps<T>];
