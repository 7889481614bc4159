import { Column, DataSource, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class User {
  @PrimaryGeneratedColumn() id: number;
  @Column({ unique: true }) email: string;
  @Column() name: string;
  @Column({ default: true }) active: boolean;
}

export const dataSource = new DataSource({ type: "postgres", entities: [User] });
