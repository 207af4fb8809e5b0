import { IsDefined, IsNotEmpty, IsString, ValidateBy } from 'class-validator';
import { isEmailAddress } from '../../common/validation/email-address.js';

const IsEmailAddress = (message: string): PropertyDecorator =>
  ValidateBy(
    { name: 'isEmail', validator: { validate: (v: unknown) => typeof v === 'string' && isEmailAddress(v) } },
    { message },
  );

export class LoginDto {
  @IsDefined({ message: 'The email field is required.' })
  @IsNotEmpty({ message: 'The email field is required.' })
  @IsString({ message: 'The email field must be a string.' })
  @IsEmailAddress('The email field must be a valid email address.')
  email!: string;

  @IsDefined({ message: 'The password field is required.' })
  @IsNotEmpty({ message: 'The password field is required.' })
  @IsString({ message: 'The password field must be a string.' })
  password!: string;
}
