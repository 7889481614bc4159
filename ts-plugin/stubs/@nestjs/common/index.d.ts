// Declaration stub for the parts of `@nestjs/common` that scanned services touch (used only
// when the real module cannot be resolved). Decorators are loose; the classes are typed only
// where txscan reads them (HttpService of old Nest versions is an HTTP client: an effect).
type AnyDecorator = (...args: any[]) => any;
export declare function Injectable(options?: any): AnyDecorator;
export declare function Inject(token?: any): AnyDecorator;
export declare function Optional(): AnyDecorator;
export declare function Module(metadata?: any): AnyDecorator;
export declare function Global(): AnyDecorator;
export declare function Controller(prefix?: any): AnyDecorator;
export declare function Get(path?: any): AnyDecorator;
export declare function Post(path?: any): AnyDecorator;
export declare function Put(path?: any): AnyDecorator;
export declare function Patch(path?: any): AnyDecorator;
export declare function Delete(path?: any): AnyDecorator;
export declare function All(path?: any): AnyDecorator;
export declare function Body(...args: any[]): AnyDecorator;
export declare function Param(...args: any[]): AnyDecorator;
export declare function Query(...args: any[]): AnyDecorator;
export declare function Req(): AnyDecorator;
export declare function Res(options?: any): AnyDecorator;
export declare function Headers(name?: string): AnyDecorator;
export declare function HttpCode(code: number): AnyDecorator;
export declare function UseGuards(...guards: any[]): AnyDecorator;
export declare function UseInterceptors(...interceptors: any[]): AnyDecorator;
export declare function UsePipes(...pipes: any[]): AnyDecorator;
export declare function SetMetadata(key: any, value: any): AnyDecorator;
export declare function forwardRef(fn: () => any): any;
export declare function applyDecorators(...decorators: any[]): AnyDecorator;
export declare function createParamDecorator(factory: (...args: any[]) => any): (...args: any[]) => AnyDecorator;
export interface DynamicModule { module: any; [key: string]: any }
export interface OnModuleInit { onModuleInit(): any }
export interface OnModuleDestroy { onModuleDestroy(): any }
export interface NestInterceptor { intercept(context: any, next: any): any }
export interface CanActivate { canActivate(context: any): any }
export interface PipeTransform<T = any, R = any> { transform(value: T, metadata: any): R }
export interface ExecutionContext { [key: string]: any }
export interface CallHandler { handle(): any }
export interface Type<T = any> extends Function { new (...args: any[]): T }
export declare class Logger {
  constructor(context?: string, options?: any);
  log(message: any, ...rest: any[]): void;
  error(message: any, ...rest: any[]): void;
  warn(message: any, ...rest: any[]): void;
  debug(message: any, ...rest: any[]): void;
  verbose(message: any, ...rest: any[]): void;
}
export declare class HttpException extends Error { constructor(response: any, status?: number, options?: any) }
export declare class BadRequestException extends HttpException { constructor(response?: any, options?: any) }
export declare class UnauthorizedException extends HttpException { constructor(response?: any, options?: any) }
export declare class ForbiddenException extends HttpException { constructor(response?: any, options?: any) }
export declare class NotFoundException extends HttpException { constructor(response?: any, options?: any) }
export declare class ConflictException extends HttpException { constructor(response?: any, options?: any) }
export declare class UnprocessableEntityException extends HttpException { constructor(response?: any, options?: any) }
export declare class InternalServerErrorException extends HttpException { constructor(response?: any, options?: any) }
export declare class ParseIntPipe { constructor(options?: any) }
export declare class ParseUUIDPipe { constructor(options?: any) }
export declare class ValidationPipe { constructor(options?: any) }
export declare enum HttpStatus { OK = 200, CREATED = 201, NO_CONTENT = 204, BAD_REQUEST = 400, NOT_FOUND = 404, CONFLICT = 409 }
/** Old Nest versions exported the axios wrapper from here. */
export declare class HttpService {
  request(config: any): any;
  get(url: string, config?: any): any;
  delete(url: string, config?: any): any;
  head(url: string, config?: any): any;
  post(url: string, data?: any, config?: any): any;
  put(url: string, data?: any, config?: any): any;
  patch(url: string, data?: any, config?: any): any;
  readonly axiosRef: any;
}
