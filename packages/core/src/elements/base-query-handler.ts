/** Answers the queries of one aggregate: each query class has exactly one `@read` method. */
export abstract class BaseQueryHandler {}
